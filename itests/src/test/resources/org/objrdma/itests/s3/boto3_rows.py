"""Issue 25's conformance rows found by ceph's s3-tests, each as Debian's boto3 shows it.

usage: boto3_rows.py ENDPOINT ACCESS_KEY SECRET_KEY REGION BUCKET STRICT SECTION
SECTION is one of: sigv2, acl, checksums, attributes, cors, public-blocked, public-on, public-blocked-again (the
public-* sections run in that order on one bucket while the caller turns public.access.enabled on and off again). Prints one 'ok <check>' line per check that holds; the
first that does not raises (exit status 1), unless STRICT is false (the reference server s3proxy): then it prints a
'deviation' line and goes on.
"""
import base64
import hashlib
import http.client
import sys
import urllib.parse

import time

import boto3
from botocore import UNSIGNED
from botocore.client import Config
from botocore.exceptions import ClientError

endpoint, access, secret, region, bucket, strict, section = sys.argv[1:8]
strict = strict == "true"


def client(signature_version, retries=None):
    config = Config(signature_version=signature_version, s3={"addressing_style": "path"},
                    retries={"max_attempts": retries} if retries else None)
    return boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=access, aws_secret_access_key=secret,
                        region_name=region, config=config)


s3 = client("s3v4")


def check(name, got, want):
    if got != want:
        if not strict:
            print("deviation %s: got %r, want %r" % (name, got, want))
            return
        raise AssertionError("%s: got %r, want %r" % (name, got, want))
    print("ok " + name)


def error(call, *args, **kwargs):
    """(HTTP status, S3 code) of a call that must fail."""
    try:
        call(*args, **kwargs)
    except ClientError as e:
        return e.response["ResponseMetadata"]["HTTPStatusCode"], e.response["Error"]["Code"]
    return 200, None


def with_headers(c, operation, headers):
    c.meta.events.register("before-call.s3." + operation, lambda params, **kw: params["headers"].update(headers))


if section == "sigv2":
    # botocore's V2 signer signs a bucket as "/bucket/" while it sends "/bucket"
    v2 = client("s3")
    v2.create_bucket(Bucket=bucket)
    check("V2 CreateBucket path style", v2.head_bucket(Bucket=bucket)["ResponseMetadata"]["HTTPStatusCode"], 200)
    # it also keeps its Date line when x-amz-date is set: x-amz-date is then the time that is checked
    old = client("s3")
    with_headers(old, "PutObject", {"x-amz-date": "Tue, 07 Jul 2010 21:53:04 GMT"})
    check("V2 x-amz-date in 2010", error(old.put_object, Bucket=bucket, Key="old", Body=b"x"),
          (403, "RequestTimeTooSkewed"))
    epoch = client("s3")
    with_headers(epoch, "PutObject", {"x-amz-date": "Tue, 07 Jul 1950 21:53:04 GMT"})
    check("V2 x-amz-date before 1970", error(epoch.put_object, Bucket=bucket, Key="old", Body=b"x"),
          (403, "AccessDenied"))
    # a Content-Length below the body: the Content-MD5 of what was read does not match, and the bytes past the
    # declared length must not be taken for the next request on the connection (botocore retries BadDigest)
    short = client("s3", retries=3)
    with_headers(short, "PutObject", {"Content-Length": "2"})
    check("V2 Content-Length below the body", error(short.put_object, Bucket=bucket, Key="short", Body=b"bar"),
          (400, "BadDigest"))
    check("nothing stored", error(s3.head_object, Bucket=bucket, Key="short")[0], 404)

elif section == "acl":
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    for name, get in [("bucket", lambda: s3.get_bucket_acl(Bucket=bucket)),
                      ("object", lambda: s3.get_object_acl(Bucket=bucket, Key="k"))]:
        acl = get()
        check(name + " ACL: one grant", [(g["Grantee"].get("Type"), g["Grantee"].get("ID"), g.get("Permission"))
                                          for g in acl.get("Grants", [])],
              [("CanonicalUser", acl.get("Owner", {}).get("ID"), "FULL_CONTROL")])
    check("PutBucketAcl private", s3.put_bucket_acl(Bucket=bucket, ACL="private")["ResponseMetadata"]["HTTPStatusCode"],
          200)
    check("PutObjectAcl private", s3.put_object_acl(Bucket=bucket, Key="k", ACL="private")
          ["ResponseMetadata"]["HTTPStatusCode"], 200)
    # public access is off by default (Block Public Access): public ACLs are AWS's 403 then
    check("PutBucketAcl public-read refused", error(s3.put_bucket_acl, Bucket=bucket, ACL="public-read"),
          (403, "AccessDenied"))
    check("PutObjectAcl public-read refused", error(s3.put_object_acl, Bucket=bucket, Key="k", ACL="public-read"),
          (403, "AccessDenied"))
    bad = client("s3v4")
    with_headers(bad, "PutBucketAcl", {"x-amz-acl": "public-ready"})
    check("not a canned ACL", error(bad.put_bucket_acl, Bucket=bucket, ACL="public-read"), (400, "InvalidArgument"))
    check("still private", [g.get("Permission") for g in s3.get_bucket_acl(Bucket=bucket).get("Grants", [])],
          ["FULL_CONTROL"])
    check("ACL of a missing key", error(s3.get_object_acl, Bucket=bucket, Key="missing")[0], 404)

elif section.startswith("public"):
    # issue 25: canned ACLs and anonymous access, off by default (public.access.enabled = false, as S3's Block
    # Public Access); the caller switches the setting between the sections, which the gateway applies live
    anon = boto3.client("s3", endpoint_url=endpoint, region_name=region,
                        config=Config(signature_version=UNSIGNED, s3={"addressing_style": "path"}))
    rw = bucket + "-rw"

    def eventually(name, probe, want):
        """The setting applies live but not at once: the probe's answer may take a few seconds to change."""
        deadline = time.time() + 60
        got = probe()
        while got != want and time.time() < deadline:
            time.sleep(1)
            got = probe()
        check(name, got, want)

    if section == "public-blocked":
        s3.create_bucket(Bucket=bucket)
        s3.put_object(Bucket=bucket, Key="priv", Body=b"private")
        check("anonymous GET refused", error(anon.get_object, Bucket=bucket, Key="priv"), (403, "AccessDenied"))
        check("anonymous GET in a missing bucket refused before any lookup",
              error(anon.get_object, Bucket=bucket + "-none", Key="k"), (403, "AccessDenied"))
        check("anonymous listing refused", error(anon.list_objects_v2, Bucket=bucket), (403, "AccessDenied"))
        check("PutObject public-read blocked", error(s3.put_object, Bucket=bucket, Key="pub", Body=b"public",
                                                     ACL="public-read"), (403, "AccessDenied"))
        check("nothing stored", error(s3.head_object, Bucket=bucket, Key="pub")[0], 404)
        check("PutBucketAcl public-read blocked", error(s3.put_bucket_acl, Bucket=bucket, ACL="public-read"),
              (403, "AccessDenied"))
        check("bucket still private", [g.get("Permission") for g in s3.get_bucket_acl(Bucket=bucket)["Grants"]],
              ["FULL_CONTROL"])
    elif section == "public-on":
        eventually("PutBucketAcl public-read once public access is on",
                   lambda: error(s3.put_bucket_acl, Bucket=bucket, ACL="public-read"), (200, None))
        s3.put_object(Bucket=bucket, Key="pub", Body=b"public", ACL="public-read")
        check("anonymous GET of a public-read object", anon.get_object(Bucket=bucket, Key="pub")["Body"].read(),
              b"public")
        check("anonymous GET of a private object", error(anon.get_object, Bucket=bucket, Key="priv"),
              (403, "AccessDenied"))
        check("anonymous listing of a public-read bucket",
              [o["Key"] for o in anon.list_objects_v2(Bucket=bucket).get("Contents", [])], ["priv", "pub"])
        check("anonymous PUT into a public-read bucket", error(anon.put_object, Bucket=bucket, Key="anon",
                                                               Body=b"a"), (403, "AccessDenied"))
        check("nothing stored by it", error(s3.head_object, Bucket=bucket, Key="anon")[0], 404)
        s3.create_bucket(Bucket=rw, ACL="public-read-write")
        check("anonymous PUT into a public-read-write bucket",
              anon.put_object(Bucket=rw, Key="anon", Body=b"anonymous")["ResponseMetadata"]["HTTPStatusCode"], 200)
        check("owned by the bucket's owner", [o["Owner"]["ID"] for o in s3.list_objects(Bucket=rw)["Contents"]],
              [s3.get_bucket_acl(Bucket=rw)["Owner"]["ID"]])
        check("the owner reads it", s3.get_object(Bucket=rw, Key="anon")["Body"].read(), b"anonymous")
        check("anonymous ACL read refused", error(anon.get_object_acl, Bucket=bucket, Key="pub"),
              (403, "AccessDenied"))
        check("object ACL grants", sorted((g["Grantee"].get("URI", "owner"), g["Permission"])
                                          for g in s3.get_object_acl(Bucket=bucket, Key="pub")["Grants"]),
              [("http://acs.amazonaws.com/groups/global/AllUsers", "READ"), ("owner", "FULL_CONTROL")])
    else:
        eventually("stored public ACLs ignored once public access is off again",
                   lambda: error(anon.get_object, Bucket=bucket, Key="pub"), (403, "AccessDenied"))
        check("anonymous PUT refused again", error(anon.put_object, Bucket=rw, Key="again", Body=b"a"),
              (403, "AccessDenied"))
        check("the owner still reads", s3.get_object(Bucket=bucket, Key="pub")["Body"].read(), b"public")

elif section == "checksums":
    s3.create_bucket(Bucket=bucket)
    check("malformed ChecksumSHA256", error(s3.put_object, Bucket=bucket, Key="c", Body=b"A" * 1024,
                                            ChecksumAlgorithm="SHA256", ChecksumSHA256="bad"), (400, "BadDigest"))
    part = hashlib.sha256(b"A" * 1024).digest()
    part_b64 = base64.b64encode(part).decode()
    composite = base64.b64encode(hashlib.sha256(part).digest()).decode() + "-1"
    for declared, want in [("bad", (400, "BadDigest")), (base64.b64encode(b"\0" * 32).decode() + "-1",
                                                          (400, "BadDigest")), (composite, (200, None))]:
        up = s3.create_multipart_upload(Bucket=bucket, Key="m", ChecksumAlgorithm="SHA256")["UploadId"]
        r = s3.upload_part(Bucket=bucket, Key="m", UploadId=up, PartNumber=1, Body=b"A" * 1024,
                           ChecksumAlgorithm="SHA256", ChecksumSHA256=part_b64)
        parts = {"Parts": [{"ETag": r["ETag"], "ChecksumSHA256": r["ChecksumSHA256"], "PartNumber": 1}]}
        check("Complete with ChecksumSHA256 " + declared, error(s3.complete_multipart_upload, Bucket=bucket, Key="m",
                                                                 UploadId=up, ChecksumSHA256=declared,
                                                                 MultipartUpload=parts), want)
    check("composite stored", s3.head_object(Bucket=bucket, Key="m", ChecksumMode="ENABLED").get("ChecksumSHA256"),
          composite)

elif section == "attributes":
    s3.create_bucket(Bucket=bucket)
    etag = s3.put_object(Bucket=bucket, Key="a", Body=b"foo", ChecksumAlgorithm="SHA256")["ETag"].strip('"')
    r = s3.get_object_attributes(Bucket=bucket, Key="a",
                                 ObjectAttributes=["ETag", "Checksum", "ObjectParts", "StorageClass", "ObjectSize"])
    check("attributes", (r.get("ETag"), r.get("ObjectSize"), r.get("StorageClass"), "ObjectParts" in r,
                         r.get("Checksum", {}).get("ChecksumSHA256")),
          (etag, 3, "STANDARD", False, base64.b64encode(hashlib.sha256(b"foo").digest()).decode()))
    check("attributes of a missing key", error(s3.get_object_attributes, Bucket=bucket, Key="missing",
                                               ObjectAttributes=["ETag"])[0], 404)

elif section == "cors":
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "k"}, ExpiresIn=600)
    u = urllib.parse.urlparse(url)
    for name, headers, want in [("OPTIONS without Origin", {}, 400),
                                ("OPTIONS without a request method", {"Origin": "http://example.com"}, 400),
                                ("OPTIONS preflight", {"Origin": "http://example.com",
                                                       "Access-Control-Request-Method": "GET"}, 403)]:
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        conn.request("OPTIONS", u.path + "?" + u.query, headers=headers)
        resp = conn.getresponse()
        resp.read()
        conn.close()
        check(name, resp.status, want)
        check(name + ": no CORS grant", resp.getheader("Access-Control-Allow-Origin"), None)

else:
    raise SystemExit("unknown section " + section)
print("done")
