package org.objrdma.store.fs.internal;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.security.MessageDigest;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.CompletedPart;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;

/** The checks of CompleteMultipartUpload and the multipart ETag, independent of where parts live. */
final class MultipartRules {
    private MultipartRules() {
    }

    /**
     * The uploaded parts the request names, in order, after every S3 check.
     *
     * @throws StoreException MALFORMED_XML, INVALID_PART_ORDER, INVALID_PART, ENTITY_TOO_SMALL, ENTITY_TOO_LARGE
     */
    static List<PartInfo> select(List<CompletedPart> requested, Map<Integer, PartInfo> uploaded, long minPartSize,
            long maxObjectSize) throws StoreException {
        if (requested.isEmpty()) {
            throw new StoreException(StoreError.MALFORMED_XML, "the request names no parts");
        }
        List<PartInfo> chosen = new ArrayList<>(requested.size());
        int previous = 0;
        long total = 0;
        for (CompletedPart want : requested) {
            if (want.partNumber() <= previous) {
                throw new StoreException(StoreError.INVALID_PART_ORDER,
                        "part " + want.partNumber() + " follows part " + previous + "; parts must be strictly ascending");
            }
            previous = want.partNumber();
            PartInfo have = uploaded.get(want.partNumber());
            if (have == null || !Conditions.unquote(want.etag()).equalsIgnoreCase(have.etag())) {
                throw new StoreException(StoreError.INVALID_PART,
                        "part " + want.partNumber() + " was not uploaded or its ETag does not match");
            }
            for (Map.Entry<ChecksumAlgorithm, String> c : want.checksums().entrySet()) {
                if (!c.getValue().equals(have.checksums().get(c.getKey()))) {
                    throw new StoreException(StoreError.INVALID_PART,
                            "the " + c.getKey().s3Name() + " checksum of part " + want.partNumber() + " does not match");
                }
            }
            chosen.add(have);
            total += have.size();
        }
        for (int i = 0; i < chosen.size() - 1; i++) {
            if (chosen.get(i).size() < minPartSize) {
                throw new StoreException(StoreError.ENTITY_TOO_SMALL, "part " + chosen.get(i).partNumber() + " is "
                        + chosen.get(i).size() + " bytes; every part but the last must be at least " + minPartSize);
            }
        }
        if (total > maxObjectSize) {
            throw Ingest.tooLarge(total, maxObjectSize);
        }
        return chosen;
    }

    /** {@code hex(md5(md5(part 1) .. md5(part N)))-N}. */
    static String etag(List<PartInfo> parts) {
        MessageDigest md5 = StreamDigester.newMd5();
        for (PartInfo p : parts) {
            md5.update(HexFormat.of().parseHex(p.etag()));
        }
        return HexFormat.of().formatHex(md5.digest()) + "-" + parts.size();
    }

    /** S3's composite checksum of the upload's algorithm, or none. */
    static Map<ChecksumAlgorithm, String> checksums(ChecksumAlgorithm algorithm, List<PartInfo> parts) {
        if (algorithm == null) {
            return Map.of();
        }
        List<String> partValues = new ArrayList<>(parts.size());
        for (PartInfo p : parts) {
            partValues.add(p.checksums().get(algorithm));
        }
        return Map.of(algorithm, algorithm.composite(partValues));
    }
}
