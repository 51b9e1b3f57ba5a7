package org.objrdma.s3.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.objrdma.api.store.BucketInfo;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.xml.XmlWriter;

/**
 * ListBuckets: the caller's buckets by name, optionally only those starting with {@code prefix}, and paged as S3
 * pages them when {@code max-buckets} (1..10000) is given: a page that leaves buckets out carries a
 * {@code ContinuationToken} (the base64url of the last name listed), which {@code continuation-token} takes back to
 * list the buckets after it. A token that is no such encoding of a bucket name is 400 InvalidArgument. Without
 * {@code max-buckets} every bucket is listed, as before. {@code bucket-region} naming another region than the
 * gateway's lists none (every bucket is in that one).
 */
final class ListBucketsOperation {
    private static final int MAX_BUCKETS = 10_000;

    private ListBucketsOperation() {
    }

    static void get(Exchange x) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.LIST_BUCKETS, null, null);
        String owner = x.auth.accessKeyId();
        boolean paged = x.query.get("max-buckets") != null;
        int max = x.intParam("max-buckets", MAX_BUCKETS, 1, MAX_BUCKETS);
        String prefix = x.query.get("prefix");
        String token = x.query.get("continuation-token");
        String after = token == null || token.isEmpty() ? null : nameOf(token);
        List<BucketInfo> page = new ArrayList<>();
        boolean truncated = false;
        String region = x.query.get("bucket-region");
        List<BucketInfo> all = region == null || region.equals(x.settings.region()) ? x.store.listBuckets(owner)
                : List.of();
        for (BucketInfo b : all) {
            if (prefix != null && !b.name().startsWith(prefix) || after != null && b.name().compareTo(after) <= 0) {
                continue;
            }
            if (paged && page.size() == max) {
                truncated = true;
                break;
            }
            page.add(b);
        }
        XmlWriter xml = XmlWriter.document("ListAllMyBucketsResult", true)
                .start("Owner").element("ID", owner).element("DisplayName", owner).end()
                .start("Buckets");
        for (BucketInfo b : page) {
            xml.start("Bucket").element("Name", b.name()).element("CreationDate", Http.isoDate(b.created())).end();
        }
        xml.end();
        if (truncated) {
            xml.element("ContinuationToken", Base64.getUrlEncoder().withoutPadding()
                    .encodeToString(page.getLast().name().getBytes(StandardCharsets.UTF_8)));
        }
        if (prefix != null) {
            xml.element("Prefix", prefix);
        }
        x.sendXml(200, xml);
    }

    private static String nameOf(String token) throws S3Exception {
        try {
            String name = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            StoreLimits.validateBucketName(name);
            return name;
        } catch (IllegalArgumentException | StoreException e) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "The continuation token '" + token
                    + "' was not issued by this ListBuckets");
        }
    }
}
