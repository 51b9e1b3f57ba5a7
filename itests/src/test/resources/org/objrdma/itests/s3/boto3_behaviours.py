"""Issue 25's behaviours as Debian's boto3 shows them, against the endpoint in argv.

usage: boto3_behaviours.py ENDPOINT ACCESS_KEY SECRET_KEY REGION BUCKET STRICT
Prints one 'ok <check>' line per check that holds; the first that does not raises (exit status 1), unless
STRICT is false (the reference server s3proxy): then it prints a 'deviation' line and goes on.
"""
import sys

import boto3
from botocore.client import Config

endpoint, access, secret, region, bucket, strict = sys.argv[1:7]
strict = strict == "true"
s3 = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=access, aws_secret_access_key=secret,
                  region_name=region, config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))
s3.create_bucket(Bucket=bucket)


def check(name, got, want):
    if got != want:
        if not strict:
            # the reference server (s3proxy 4.1) deviates here, e.g. it URL-encodes V1's Prefix ("%0A")
            print("deviation %s: got %r, want %r" % (name, got, want))
            return
        raise AssertionError("%s: got %r, want %r" % (name, got, want))
    print("ok " + name)


# a metadata value beyond ASCII, set as ceph's s3-tests set it (botocore's Metadata parameter takes ASCII
# only): botocore signs the text (its UTF-8) and http.client sends it as Latin-1 bytes
meta = {"meta1": "Hello World\xe9", "plain": "ascii"}


def unicode_metadata(params, **kwargs):
    params["headers"]["x-amz-meta-meta1"] = meta["meta1"]


if strict:
    # s3proxy 4.1 answers this request SignatureDoesNotMatch
    s3.meta.events.register("before-call.s3.PutObject", unicode_metadata)
    s3.put_object(Bucket=bucket, Key="meta", Body=b"x", Metadata={"plain": "ascii"})
    s3.meta.events.unregister("before-call.s3.PutObject", unicode_metadata)
    check("metadata round trip", s3.head_object(Bucket=bucket, Key="meta")["Metadata"], meta)
    check("metadata on GET", s3.get_object(Bucket=bucket, Key="meta")["Metadata"], meta)

# listing echo: boto3 asks encoding-type=url and decodes what S3 encodes; a raw newline must survive
for key in ["\nfoo", "a b/c", "d\x1f/x"]:
    s3.put_object(Bucket=bucket, Key=key, Body=b"")
v1 = s3.list_objects(Bucket=bucket, Prefix="\n")
check("V1 Prefix echo", v1["Prefix"], "\n")
check("V1 keys", [o["Key"] for o in v1.get("Contents", [])], ["\nfoo"])
v2 = s3.list_objects_v2(Bucket=bucket, Prefix="\n")
check("V2 Prefix echo", v2["Prefix"], "\n")
check("V2 keys", [o["Key"] for o in v2.get("Contents", [])], ["\nfoo"])
check("V2 no ContinuationToken", "ContinuationToken" in v2, False)
# an empty token that was sent is echoed, empty (ceph's test_bucket_listv2_continuationtoken_empty)
check("V2 empty ContinuationToken echo", s3.list_objects_v2(Bucket=bucket, Prefix="\n", ContinuationToken="")
      .get("ContinuationToken"), "")
v1d = s3.list_objects(Bucket=bucket, Delimiter="/", Marker="a")
check("V1 Marker echo", v1d["Marker"], "a")
check("V1 Delimiter echo", v1d["Delimiter"], "/")
check("V1 common prefixes", [p["Prefix"] for p in v1d.get("CommonPrefixes", [])], ["a b/", "d\x1f/"])
v2d = s3.list_objects_v2(Bucket=bucket, Delimiter="/", StartAfter="a", MaxKeys=1)
check("V2 StartAfter echo", v2d["StartAfter"], "a")
check("V2 first page", [p["Prefix"] for p in v2d.get("CommonPrefixes", [])], ["a b/"])
v2n = s3.list_objects_v2(Bucket=bucket, Delimiter="/", StartAfter="a", MaxKeys=1,
                         ContinuationToken=v2d["NextContinuationToken"])
check("V2 ContinuationToken echo", v2n["ContinuationToken"], v2d["NextContinuationToken"])
check("V2 second page", [p["Prefix"] for p in v2n.get("CommonPrefixes", [])], ["d\x1f/"])

# Content-Encoding as stored, with its space
s3.put_object(Bucket=bucket, Key="enc", Body=b"x", ContentEncoding="deflate, gzip")
check("Content-Encoding", s3.head_object(Bucket=bucket, Key="enc")["ContentEncoding"], "deflate, gzip")
print("done")
