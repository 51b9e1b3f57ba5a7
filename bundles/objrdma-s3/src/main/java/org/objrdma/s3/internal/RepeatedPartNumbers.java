package org.objrdma.s3.internal;

import java.util.ArrayList;
import java.util.List;
import org.objrdma.api.store.CompletedPart;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.store.PartsPage;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;

/**
 * A CompleteMultipartUpload that names one part number several times in a row: a client that uploaded a part
 * number twice at once (a retry racing the first attempt) lists both answers' ETags, and S3 completes with the
 * upload that finished last, which is the part the store now holds. Such a run collapses to the listed entry whose
 * ETag is that stored part, so the store (whose contract is strictly ascending numbers) completes with it; when no
 * entry of the run names it (or the upload is gone, as for a retried Complete) the run's last entry is kept and the
 * store answers InvalidPart or its remembered result. A number that comes back after a higher one is left as it is,
 * so the store still refuses the list as InvalidPartOrder.
 */
final class RepeatedPartNumbers {

    private RepeatedPartNumbers() {
    }

    static List<CompletedPart> collapse(ObjectStore store, String bucket, String key, String uploadId,
            List<CompletedPart> listed) throws StoreException {
        List<CompletedPart> out = new ArrayList<>(listed.size());
        int i = 0;
        while (i < listed.size()) {
            int end = i + 1;
            while (end < listed.size() && listed.get(end).partNumber() == listed.get(i).partNumber()) {
                end++;
            }
            out.add(end - i == 1 ? listed.get(i) : stored(store, bucket, key, uploadId, listed.subList(i, end)));
            i = end;
        }
        return out;
    }

    /** The entry of a run of one part number that names the part stored under it, else the run's last entry. */
    private static CompletedPart stored(ObjectStore store, String bucket, String key, String uploadId,
            List<CompletedPart> run) throws StoreException {
        CompletedPart last = run.get(run.size() - 1);
        String etag;
        try {
            PartsPage page = store.listParts(bucket, key, uploadId, last.partNumber() - 1, 1);
            if (page.parts().isEmpty() || page.parts().get(0).partNumber() != last.partNumber()) {
                return last;
            }
            etag = page.parts().get(0).etag();
        } catch (StoreException e) {
            if (e.error() == StoreError.NO_SUCH_UPLOAD) {
                return last;
            }
            throw e;
        }
        for (int j = run.size() - 1; j >= 0; j--) {
            if (unquoted(run.get(j).etag()).equals(unquoted(etag))) {
                return run.get(j);
            }
        }
        return last;
    }

    private static String unquoted(String etag) {
        String e = etag.strip();
        return e.length() >= 2 && e.startsWith("\"") && e.endsWith("\"") ? e.substring(1, e.length() - 1) : e;
    }
}
