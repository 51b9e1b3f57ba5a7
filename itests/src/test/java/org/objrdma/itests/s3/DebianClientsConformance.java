package org.objrdma.itests.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.itests.Processes;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The S3 clients a user installs from Debian (bookworm): the aws CLI v2 ({@code /usr/bin/aws}, not the pyenv
 * v1 shim on PATH), s3cmd, rclone and curl {@code --aws-sigv4}, each driven as a process with its own
 * configuration in a temporary directory (HOME points there too, so no user configuration is read). Every
 * upload and download is checked byte-exact by SHA-256, and the server's view through the SDK.
 */
public abstract class DebianClientsConformance extends S3ConformanceBase {

    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static final long MIB = 1 << 20;

    private Path home;
    private Path data;
    private String smallSha;
    private String bigSha;

    @BeforeEach
    void files() throws Exception {
        home = Files.createDirectories(scratch.resolve("home"));
        data = Files.createDirectories(scratch.resolve("data"));
        smallSha = Payloads.writeFile(data.resolve("small.bin"), 4096, 1);
        Payloads.writeFile(data.resolve("one.bin"), 1, 2);
        Files.writeString(data.resolve("empty.txt"), "");
        // above every client's multipart threshold set below (5 MiB): three parts
        bigSha = Payloads.writeFile(scratch.resolve("big.bin"), 12 * MIB + 17, 3);
    }

    @Test
    void awsCli() throws Exception {
        Path config = home.resolve("aws-config");
        Files.writeString(config, "[default]\nregion = " + region() + "\noutput = json\ns3 =\n"
                + "  addressing_style = path\n  multipart_threshold = 5MB\n  multipart_chunksize = 5MB\n");
        Path credentials = home.resolve("aws-credentials");
        Files.writeString(credentials, "[default]\naws_access_key_id = " + accessKey()
                + "\naws_secret_access_key = " + secretKey() + "\n");
        Map<String, String> env = cleanEnvironment();
        env.put("AWS_CONFIG_FILE", config.toString());
        env.put("AWS_SHARED_CREDENTIALS_FILE", credentials.toString());
        env.put("AWS_PAGER", "");
        String bucket = bucketName("awscli");
        String s3url = "s3://" + bucket;

        aws(env, "s3", "mb", s3url);
        aws(env, "s3", "cp", data.resolve("small.bin").toString(), s3url + "/dir/small.bin");
        aws(env, "s3", "cp", s3url + "/dir/small.bin", scratch.resolve("small.out").toString());
        assertEquals(smallSha, Payloads.sha256(scratch.resolve("small.out")));
        assertTrue(aws(env, "s3", "ls", s3url + "/dir/").contains("small.bin"));

        aws(env, "s3", "sync", data.toString(), s3url + "/sync/");
        assertEquals(List.of("sync/empty.txt", "sync/one.bin", "sync/small.bin"), listed(bucket, "sync/"));
        Path back = scratch.resolve("back");
        aws(env, "s3", "sync", s3url + "/sync/", back.toString());
        assertEquals(smallSha, Payloads.sha256(back.resolve("small.bin")));
        assertEquals(0, Files.size(back.resolve("empty.txt")));

        aws(env, "s3", "cp", scratch.resolve("big.bin").toString(), s3url + "/big.bin");
        String head = aws(env, "s3api", "head-object", "--bucket", bucket, "--key", "big.bin");
        assertTrue(head.contains("-3\\\""), "three-part ETag in " + head);
        aws(env, "s3", "cp", s3url + "/big.bin", scratch.resolve("big.out").toString());
        assertEquals(bigSha, Payloads.sha256(scratch.resolve("big.out")));

        aws(env, "s3api", "put-object", "--bucket", bucket, "--key", "api/k", "--body", data.resolve("one.bin").toString());
        assertTrue(aws(env, "s3api", "list-objects-v2", "--bucket", bucket, "--prefix", "api/").contains("\"api/k\""));
        aws(env, "s3", "rm", s3url + "/dir/small.bin");
        aws(env, "s3", "rm", "--recursive", s3url + "/sync/");
        assertFalse(listed(bucket, "").contains("dir/small.bin"));
        assertEquals(List.of("api/k", "big.bin"), listed(bucket, ""));
    }

    @Test
    void s3cmd() throws Exception {
        String hostPort = endpoint().getHost() + ":" + endpoint().getPort();
        Path cfg = home.resolve("s3cfg");
        Files.writeString(cfg, "[default]\naccess_key = " + accessKey() + "\nsecret_key = " + secretKey()
                + "\nhost_base = " + hostPort + "\nhost_bucket = " + hostPort + "\nuse_https = False\n"
                + "signature_v2 = False\nbucket_location = " + region() + "\nmultipart_chunk_size_mb = 5\n");
        Map<String, String> env = cleanEnvironment();
        String bucket = bucketName("s3cmd");
        String url = "s3://" + bucket;
        s3cmd(env, cfg, "mb", url);
        s3cmd(env, cfg, "put", data.resolve("small.bin").toString(), url + "/small.bin");
        s3cmd(env, cfg, "get", "--force", url + "/small.bin", scratch.resolve("small.out").toString());
        assertEquals(smallSha, Payloads.sha256(scratch.resolve("small.out")));
        s3cmd(env, cfg, "put", scratch.resolve("big.bin").toString(), url + "/big.bin");
        assertTrue(s3(ClientMode.DEFAULTS).headObject(b -> b.bucket(bucket).key("big.bin")).eTag().endsWith("-3\""),
                "s3cmd uploads 12 MiB in 5 MiB parts");
        s3cmd(env, cfg, "get", "--force", url + "/big.bin", scratch.resolve("big.out").toString());
        assertEquals(bigSha, Payloads.sha256(scratch.resolve("big.out")));
        String ls = s3cmd(env, cfg, "ls", url + "/");
        assertTrue(ls.contains(url + "/small.bin") && ls.contains(url + "/big.bin"), ls);
        s3cmd(env, cfg, "del", url + "/small.bin");
        assertEquals(List.of("big.bin"), listed(bucket, ""));
    }

    @Test
    void s3cmdSignatureV2() throws Exception {
        // s3cmd signs every request with SigV2 (HMAC-SHA1, x-amz-date, sub-resources in the resource)
        String hostPort = endpoint().getHost() + ":" + endpoint().getPort();
        Path cfg = home.resolve("s3cfg-v2");
        Files.writeString(cfg, "[default]\naccess_key = " + accessKey() + "\nsecret_key = " + secretKey()
                + "\nhost_base = " + hostPort + "\nhost_bucket = " + hostPort + "\nuse_https = False\n"
                + "signature_v2 = True\nbucket_location = " + region() + "\n");
        Map<String, String> env = cleanEnvironment();
        String bucket = bucketName("s3cmdv2");
        String url = "s3://" + bucket;
        String hugeSha = Payloads.writeFile(scratch.resolve("huge.bin"), 16 * MIB + 5, 4);
        s3cmd(env, cfg, "mb", url);
        s3cmd(env, cfg, "put", data.resolve("small.bin").toString(), url + "/dir/small file.bin");
        s3cmd(env, cfg, "get", "--force", url + "/dir/small file.bin", scratch.resolve("small.out").toString());
        assertEquals(smallSha, Payloads.sha256(scratch.resolve("small.out")));
        s3cmd(env, cfg, "put", "--multipart-chunk-size-mb=5", scratch.resolve("huge.bin").toString(), url + "/huge.bin");
        assertTrue(s3(ClientMode.DEFAULTS).headObject(b -> b.bucket(bucket).key("huge.bin")).eTag().endsWith("-4\""),
                "s3cmd uploads 16 MiB in 5 MiB parts");
        s3cmd(env, cfg, "get", "--force", url + "/huge.bin", scratch.resolve("huge.out").toString());
        assertEquals(hugeSha, Payloads.sha256(scratch.resolve("huge.out")));
        String ls = s3cmd(env, cfg, "ls", url + "/dir/");
        assertTrue(ls.contains(url + "/dir/small file.bin"), ls);
        s3cmd(env, cfg, "del", url + "/dir/small file.bin");
        assertEquals(List.of("huge.bin"), listed(bucket, ""));
    }

    @Test
    void boto3PresignedUrlsAreSignatureV2() throws Exception {
        // Debian bookworm's boto3 1.26 presigns with SigV2 ('s3') by default: AWSAccessKeyId, Signature, Expires
        String bucket = newBucket("boto3v2");
        Path script = home.resolve("presign.py");
        Files.writeString(script, String.join("\n",
                "import sys, boto3, requests",
                "s3 = boto3.client('s3', endpoint_url=sys.argv[1], aws_access_key_id=sys.argv[2],",
                "                  aws_secret_access_key=sys.argv[3], region_name=sys.argv[4])",
                "put = s3.generate_presigned_url('put_object', Params={'Bucket': sys.argv[5], 'Key': 'p/k v'},"
                        + " ExpiresIn=300)",
                "get = s3.generate_presigned_url('get_object', Params={'Bucket': sys.argv[5], 'Key': 'p/k v'},"
                        + " ExpiresIn=300)",
                "assert 'AWSAccessKeyId=' in put and 'Signature=' in put and 'Expires=' in put, put",
                "body = open(sys.argv[6], 'rb').read()",
                // requests sends no Content-Type of its own (it is part of what V2 signs)
                "r = requests.put(put, data=body)",
                "assert r.status_code == 200, (r.status_code, r.text)",
                "r = requests.get(get)",
                "assert r.status_code == 200 and r.content == body, (r.status_code, r.text)",
                "r = requests.get(get.replace('Expires=', 'Expires=1'))",
                "assert r.status_code == 403, ('a presigned URL with a changed Expires', r.status_code, r.text)",
                "print('ok', boto3.__version__)", ""));
        String out = ok(cleanEnvironment(), new String[] {"/usr/bin/python3", script.toString(), endpoint().toString(),
                accessKey(), secretKey(), region(), bucket, data.resolve("small.bin").toString()});
        assertTrue(out.contains("ok"), out);
        assertEquals(List.of("p/k v"), listed(bucket, "p/"));
    }

    @Test
    void rclone() throws Exception {
        Path conf = home.resolve("rclone.conf");
        Files.writeString(conf, "[t]\ntype = s3\nprovider = Other\naccess_key_id = " + accessKey()
                + "\nsecret_access_key = " + secretKey() + "\nendpoint = " + endpoint() + "\nregion = " + region()
                + "\nforce_path_style = true\n");
        Map<String, String> env = cleanEnvironment();
        env.put("RCLONE_CONFIG", conf.toString());
        String bucket = bucketName("rclone");
        rclone(env, "mkdir", "t:" + bucket);
        rclone(env, "copy", data.toString(), "t:" + bucket + "/copy");
        assertEquals(List.of("copy/empty.txt", "copy/one.bin", "copy/small.bin"), listed(bucket, "copy/"));
        String ls = rclone(env, "ls", "t:" + bucket);
        assertTrue(ls.contains("4096 copy/small.bin"), ls);
        rclone(env, "copyto", "t:" + bucket + "/copy/small.bin", scratch.resolve("small.out").toString());
        assertEquals(smallSha, Payloads.sha256(scratch.resolve("small.out")));
        rclone(env, "sync", data.toString(), "t:" + bucket + "/sync");
        Files.delete(data.resolve("one.bin"));
        rclone(env, "sync", data.toString(), "t:" + bucket + "/sync");
        assertEquals(List.of("sync/empty.txt", "sync/small.bin"), listed(bucket, "sync/"));
        rclone(env, "copyto", "--s3-upload-cutoff", "5M", "--s3-chunk-size", "5M",
                scratch.resolve("big.bin").toString(), "t:" + bucket + "/big.bin");
        assertTrue(s3(ClientMode.DEFAULTS).headObject(b -> b.bucket(bucket).key("big.bin")).eTag().endsWith("-3\""),
                "rclone uploads 12 MiB in 5 MiB parts");
        rclone(env, "copyto", "t:" + bucket + "/big.bin", scratch.resolve("big.out").toString());
        assertEquals(bigSha, Payloads.sha256(scratch.resolve("big.out")));
        rclone(env, "delete", "t:" + bucket + "/copy");
        assertEquals(List.of("big.bin", "sync/empty.txt", "sync/small.bin"), listed(bucket, ""));
    }

    @Test
    void curlAwsSigv4() throws Exception {
        // curl 7.88 signs no x-amz-content-sha256; S3 needs one, so it is sent (and signed) explicitly
        String bucket = newBucket("curl");
        String url = endpoint() + "/" + bucket + "/small.bin";
        Map<String, String> env = cleanEnvironment();
        curl(env, "-T", data.resolve("small.bin").toString(), url);
        curl(env, "-o", scratch.resolve("small.out").toString(), url);
        assertEquals(smallSha, Payloads.sha256(scratch.resolve("small.out")));
        String listing = curl(env, endpoint() + "/" + bucket + "?list-type=2");
        assertTrue(listing.contains("<Key>small.bin</Key>"), listing);
        curl(env, "-X", "DELETE", url);
        assertEquals(List.of(), listed(bucket, ""));
    }

    private String aws(Map<String, String> env, String... args) throws Exception {
        return ok(env, concat(List.of("/usr/bin/aws", "--endpoint-url", endpoint().toString()), args));
    }

    private String s3cmd(Map<String, String> env, Path cfg, String... args) throws Exception {
        return ok(env, concat(List.of("s3cmd", "-c", cfg.toString()), args));
    }

    private String rclone(Map<String, String> env, String... args) throws Exception {
        return ok(env, concat(List.of("rclone", "--retries", "1", "--low-level-retries", "1"), args));
    }

    private String curl(Map<String, String> env, String... args) throws Exception {
        return ok(env, concat(List.of("curl", "-sS", "--fail-with-body", "--aws-sigv4", "aws:amz:" + region() + ":s3",
                "--user", accessKey() + ":" + secretKey(), "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD"), args));
    }

    private String ok(Map<String, String> env, String[] command) throws Exception {
        Processes.Ran ran = Processes.exec(scratch, TIMEOUT, "", env, command);
        assertEquals(0, ran.exitValue(), () -> String.join(" ", command) + "\n" + ran.output());
        return ran.output();
    }

    /** HOME in the scratch directory and none of the caller's AWS settings. */
    private Map<String, String> cleanEnvironment() {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", home.toString());
        for (String v : List.of("AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                "AWS_DEFAULT_REGION", "AWS_REGION", "AWS_ENDPOINT_URL", "AWS_CA_BUNDLE", "RCLONE_CONFIG",
                "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY")) {
            env.put(v, null);
        }
        env.put("NO_PROXY", "127.0.0.1,localhost");
        return env;
    }

    private List<String> listed(String bucket, String prefix) {
        S3Client s3 = s3(ClientMode.DEFAULTS);
        return SdkOperationsConformance.keys(s3.listObjectsV2(b -> b.bucket(bucket).prefix(prefix)).contents());
    }

    private static String[] concat(List<String> head, String... tail) {
        List<String> all = new java.util.ArrayList<>(head);
        all.addAll(List.of(tail));
        return all.toArray(String[]::new);
    }
}
