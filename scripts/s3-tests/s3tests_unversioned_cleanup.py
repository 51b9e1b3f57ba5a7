"""pytest plugin loaded by scripts/s3-tests.sh: the suite's bucket cleanup on a server without versioning.

s3-tests empties every bucket it made, before and after each test, with ListObjectVersions and a DeleteObjects
that carries version ids and x-amz-bypass-governance-retention. objrdma implements no versioning and answers
those with 501 NotImplemented, which would turn every test after the first into a setup error. When the suite's
own cleanup meets NotImplemented, this one does the same job with unversioned calls (ListObjectsV2,
DeleteObjects, ListMultipartUploads / AbortMultipartUpload, DeleteBucket). No test body is changed: tests that
use versioning themselves still call the server and still fail there.
"""
from botocore.exceptions import ClientError
import s3tests.functional as functional

_suite_nuke_bucket = functional.nuke_bucket


def _unversioned_nuke_bucket(client, bucket):
    for page in client.get_paginator('list_objects_v2').paginate(Bucket=bucket):
        keys = [{'Key': o['Key']} for o in page.get('Contents', [])]
        if keys:
            client.delete_objects(Bucket=bucket, Delete={'Objects': keys, 'Quiet': True})
    uploads = client.list_multipart_uploads(Bucket=bucket).get('Uploads', [])
    for u in uploads:
        client.abort_multipart_upload(Bucket=bucket, Key=u['Key'], UploadId=u['UploadId'])
    client.delete_bucket(Bucket=bucket)


def _nuke_bucket(client, bucket):
    try:
        _suite_nuke_bucket(client, bucket)
    except ClientError as e:
        if e.response.get('Error', {}).get('Code') != 'NotImplemented':
            raise
        _unversioned_nuke_bucket(client, bucket)


functional.nuke_bucket = _nuke_bucket
