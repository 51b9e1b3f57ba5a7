"""Browser-based POST uploads (S3's PostObject) as an HTML form sends them, signed by boto3's generate_presigned_post.

usage: boto3_post_object.py ENDPOINT ACCESS_KEY SECRET_KEY REGION BUCKET STRICT
Prints one 'ok <check>' line per check that holds; the first that does not raises (exit status 1), unless STRICT
is false (the reference server s3proxy): then it prints a 'deviation' line and goes on. The form is posted with
http.client (multipart/form-data built here, fields before the file as browsers send them), never redirected.
"""
import http.client
import sys
import urllib.parse
import uuid
import xml.etree.ElementTree as ET

import boto3
from botocore.client import Config
from botocore.exceptions import ClientError

endpoint, access, secret, region, bucket, strict = sys.argv[1:7]
strict = strict == "true"


def client(signature_version):
    return boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=access, aws_secret_access_key=secret,
                        region_name=region,
                        config=Config(signature_version=signature_version, s3={"addressing_style": "path"}))


s3 = client("s3v4")
s3.create_bucket(Bucket=bucket)


def check(name, got, want):
    if got != want:
        if not strict:
            print("deviation %s: got %r, want %r" % (name, got, want))
            return
        raise AssertionError("%s: got %r, want %r" % (name, got, want))
    print("ok " + name)


def post(url, fields, filename, content):
    """POSTs the form; returns (status, headers, body)."""
    boundary = "----objrdma" + uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(("--%s\r\nContent-Disposition: form-data; name=\"%s\"\r\n\r\n" % (boundary, name)).encode()
                     + value.encode("utf-8") + b"\r\n")
    parts.append(("--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"%s\"\r\n"
                  "Content-Type: application/octet-stream\r\n\r\n" % (boundary, filename)).encode()
                 + content + b"\r\n")
    parts.append(("--%s--\r\n" % boundary).encode())
    body = b"".join(parts)
    u = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    conn.request("POST", u.path or "/", body=body,
                 headers={"Content-Type": "multipart/form-data; boundary=" + boundary})
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, data


def code(body):
    try:
        return ET.fromstring(body).findtext("Code")
    except ET.ParseError:
        return None


def stored(key):
    try:
        return s3.get_object(Bucket=bucket, Key=key)
    except ClientError as e:
        if e.response["Error"]["Code"] in ("NoSuchKey", "404"):
            return None
        raise


conditions = [{"Content-Type": "text/plain"}, ["starts-with", "$x-amz-meta-origin", "form"],
              {"success_action_status": "201"}, ["content-length-range", 1, 1024]]
fields = {"Content-Type": "text/plain", "x-amz-meta-origin": "form-v4", "success_action_status": "201"}
form = s3.generate_presigned_post(bucket, "uploads/${filename}", Fields=dict(fields), Conditions=conditions,
                                  ExpiresIn=600)

# SigV4 form: ${filename} becomes the file's name, 201 answers a PostResponse, the fields become the headers
status, headers, body = post(form["url"], form["fields"], "hello.txt", b"hello form")
check("v4 status", status, 201)
if status == 201:
    check("v4 PostResponse Key", ET.fromstring(body).findtext("Key"), "uploads/hello.txt")
got = stored("uploads/hello.txt")
check("v4 object stored", got is not None, True)
if got is not None:
    check("v4 content", got["Body"].read(), b"hello form")
    check("v4 Content-Type", got["ContentType"], "text/plain")
    check("v4 metadata", got["Metadata"], {"origin": "form-v4"})
    check("v4 ETag", headers.get("etag"), got["ETag"])

# SigV2 form (Debian's older boto3 and s3cmd sign V2): default answer 204
form2 = client("s3").generate_presigned_post(bucket, "v2.txt", Fields={"Content-Type": "text/plain"},
                                             Conditions=[{"Content-Type": "text/plain"}], ExpiresIn=600)
status, _, body = post(form2["url"], form2["fields"], "v2.txt", b"signed v2")
check("v2 status", status, 204)
got = stored("v2.txt")
check("v2 content", got["Body"].read() if got else None, b"signed v2")

# the policy's bounds: each refusal stores nothing
status, _, body = post(form["url"], form["fields"], "big.txt", b"x" * 1025)
check("above content-length-range", (status, code(body)), (400, "EntityTooLarge"))
check("above range stored nothing", stored("uploads/big.txt"), None)
status, _, body = post(form["url"], form["fields"], "empty.txt", b"")
check("below content-length-range", (status, code(body)), (400, "EntityTooSmall"))
check("below range stored nothing", stored("uploads/empty.txt"), None)
tampered = dict(form["fields"], **{"Content-Type": "text/html"})
status, _, body = post(form["url"], tampered, "html.txt", b"<script>")
check("field against the policy", (status, code(body)), (403, "AccessDenied"))
extra = dict(form["fields"], **{"x-amz-meta-extra": "unsigned"})
status, _, body = post(form["url"], extra, "extra.txt", b"x")
check("field the policy does not name", (status, code(body)), (403, "AccessDenied"))
forged = dict(form["fields"], **{"x-amz-signature": "0" * 64})
status, _, body = post(form["url"], forged, "forged.txt", b"x")
check("wrong signature", (status, code(body)), (403, "SignatureDoesNotMatch"))
expired = s3.generate_presigned_post(bucket, "expired.txt", ExpiresIn=-60)
status, _, body = post(expired["url"], expired["fields"], "expired.txt", b"x")
check("expired policy", (status, code(body)), (403, "AccessDenied"))
status, _, body = post(form["url"], {"key": "anonymous.txt"}, "anonymous.txt", b"x")
check("anonymous form on a private bucket", (status, code(body)), (403, "AccessDenied"))
for key in ["uploads/html.txt", "uploads/extra.txt", "uploads/forged.txt", "expired.txt", "anonymous.txt"]:
    check("nothing stored for " + key, stored(key), None)

# success_action_redirect: 303 to the URL the policy names, with bucket, key and ETag
target = "http://example.invalid/done?from=form"
form3 = s3.generate_presigned_post(bucket, "redirected.txt", Fields={"success_action_redirect": target},
                                   Conditions=[{"success_action_redirect": target}], ExpiresIn=600)
status, headers, _ = post(form3["url"], form3["fields"], "r.txt", b"r")
check("redirect status", status, 303)
etag = (stored("redirected.txt") or {}).get("ETag", "")
check("redirect Location", headers.get("location"), target + "&bucket=" + bucket + "&key=redirected.txt&etag="
      + urllib.parse.quote(etag, safe=""))
print("done")
