package org.objrdma.client.sdk;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.client.RcTransfer;
import org.objrdma.wire.RcToken;
import org.objrdma.wire.RdmaHeaders;
import org.objrdma.wire.RcTokenCodec;
import org.objrdma.wire.RcTokenCodecs;
import org.objrdma.wire.TokenResult;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * The client side of {@code POST /.hipobj-rc/prepare|ready|cancel}: requests signed by the SDK's own SigV4 signer
 * ({@link AwsV4HttpSigner}, as S3Client configures it for S3: no double encoding, no path normalisation) with every
 * {@code x-amz-rdma-*} header in SignedHeaders, sent with the JDK's HTTP client (these are not S3 operations, so the
 * S3Client has no call for them).
 */
final class RcRoutes {
    /** Headers the JDK client sets itself and refuses to take from the caller. */
    private static final Set<String> RESTRICTED = Set.of("host", "content-length", "connection", "expect", "upgrade");
    private static final Pattern CODE = Pattern.compile("<Code>([^<]*)</Code>");
    private static final Pattern MESSAGE = Pattern.compile("<Message>([^<]*)</Message>");

    private final HttpClient http;
    private final URI endpoint;
    private final String region;
    private final Duration timeout;

    /** {@code tls}: the context of an https endpoint's connections (what the S3Client trusts); null: the JDK's. */
    RcRoutes(URI endpoint, String region, Duration timeout, SSLContext tls) {
        this.endpoint = endpoint;
        this.region = region;
        this.timeout = timeout;
        // HTTP/1.1: the gateway is plain S3 over HTTP/1.1; no h2c upgrade headers on signed requests
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout);
        if (tls != null) {
            b.sslContext(tls);
        }
        this.http = b.build();
    }

    HttpResponse<String> prepare(AwsCredentialsIdentity who, Op op, String target, long objectOffset, long size,
            RcTransfer transfer) throws IOException {
        return post(who, "prepare", List.of(
                RdmaHeaders.OP, op.name(),
                RdmaHeaders.TARGET, target,
                RdmaHeaders.SIZE, Long.toString(size),
                RdmaHeaders.OFFSET, Long.toString(objectOffset),
                RdmaHeaders.PSN, Integer.toHexString(transfer.psn()),
                RdmaHeaders.COOKIE, Integer.toHexString(transfer.cookie()),
                RdmaHeaders.TOKEN, transfer.token(),
                RdmaHeaders.CHANNEL_KEY, HexFormat.of().formatHex(transfer.channelKey())));
    }

    HttpResponse<String> ready(AwsCredentialsIdentity who, SessionId session, RcTransfer transfer) throws IOException {
        return post(who, "ready", List.of(
                RdmaHeaders.SESSION, session.hex(),
                RdmaHeaders.COOKIE, Integer.toHexString(transfer.cookie()),
                RdmaHeaders.QPN, Long.toHexString(transfer.clientEndpoint().queueNumber())));
    }

    HttpResponse<String> cancel(AwsCredentialsIdentity who, SessionId session) throws IOException {
        return post(who, "cancel", List.of(RdmaHeaders.SESSION, session.hex()));
    }

    private HttpResponse<String> post(AwsCredentialsIdentity who, String route, List<String> headers) throws IOException {
        URI uri = endpoint.resolve("/.hipobj-rc/" + route);
        SdkHttpRequest.Builder b = SdkHttpRequest.builder().method(SdkHttpMethod.POST).uri(uri)
                .putHeader(RdmaHeaders.PROTOCOL, RdmaHeaders.RC_PROTOCOL);
        for (int i = 0; i < headers.size(); i += 2) {
            b.putHeader(headers.get(i), headers.get(i + 1));
        }
        SdkHttpRequest signed = AwsV4HttpSigner.create().sign(s -> s
                .identity(who)
                .request(b.build())
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                .putProperty(AwsV4HttpSigner.REGION_NAME, region)
                .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false)).request();
        HttpRequest.Builder out = HttpRequest.newBuilder(uri).timeout(timeout).POST(HttpRequest.BodyPublishers.noBody());
        for (Map.Entry<String, List<String>> h : signed.headers().entrySet()) {
            if (!RESTRICTED.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                for (String v : h.getValue()) {
                    out.header(h.getKey(), v);
                }
            }
        }
        try {
            return http.send(out.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + uri, e);
        }
    }

    /** The server's endpoint and staging region from a PREPARE's 200 answer. */
    static PrepareResponse prepared(HttpResponse<String> r, long size) {
        String reply = header(r, RdmaHeaders.REPLY);
        if (!reply.startsWith("200:")) {
            throw new RdmaS3Exception(r.statusCode(), null, "PREPARE answered " + RdmaHeaders.REPLY + ": " + reply);
        }
        TokenResult<RcToken> token = RcToken.parse(reply.substring(4));
        if (!token.isOk()) {
            throw new RdmaS3Exception(r.statusCode(), null, "PREPARE answered a malformed server token: " + token.detail());
        }
        byte[] key = HexFormat.of().parseHex(header(r, RdmaHeaders.CHANNEL_KEY));
        int psn = Integer.parseInt(header(r, RdmaHeaders.PSN), 16);
        TokenResult<EndpointInfo> server = RcTokenCodecs.decode(token.value(),
                new RcTokenCodec.Context(psn, Mtu.MTU_4096, key));
        if (!server.isOk()) {
            throw new RdmaS3Exception(r.statusCode(), null, "PREPARE answered a server token this client cannot use: "
                    + server.detail());
        }
        RemoteRegion staging = new RemoteRegion(Long.parseUnsignedLong(header(r, RdmaHeaders.MR_ADDR), 16), size,
                (int) Long.parseLong(header(r, RdmaHeaders.MR_RKEY), 16));
        return new PrepareResponse(new SessionId(header(r, RdmaHeaders.SESSION)), server.value(), staging);
    }

    private static String header(HttpResponse<String> r, String name) {
        return r.headers().firstValue(name).orElseThrow(() -> new RdmaS3Exception(r.statusCode(), null,
                "the gateway's answer lacks " + name));
    }

    /** The S3 error of a refusal, as an exception naming the step. */
    static RdmaS3Exception refusal(String step, HttpResponse<String> r) {
        String c = errorCode(r);
        String m = errorMessage(r);
        return new RdmaS3Exception(r.statusCode(), c, "hipobj-rc-v2 " + step + " refused: " + r.statusCode()
                + (c == null ? "" : " " + c) + (m.isEmpty() ? "" : ": " + m));
    }

    /** The S3 error code of a refusal's body, or null. */
    static String errorCode(HttpResponse<String> r) {
        Matcher code = CODE.matcher(r.body() == null ? "" : r.body());
        return code.find() ? code.group(1) : null;
    }

    /** The S3 error message of a refusal's body, else the whole body stripped (may be empty). */
    static String errorMessage(HttpResponse<String> r) {
        String body = r.body() == null ? "" : r.body();
        Matcher message = MESSAGE.matcher(body);
        return message.find() ? message.group(1) : body.strip();
    }
}
