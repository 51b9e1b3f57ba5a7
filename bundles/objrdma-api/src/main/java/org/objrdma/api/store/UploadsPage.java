package org.objrdma.api.store;

import java.util.List;

/**
 * One ListMultipartUploads page.
 *
 * @param uploads            in key order, then initiation order
 * @param truncated          more follows
 * @param nextKeyMarker      when truncated: the key marker for the next page, else null
 * @param nextUploadIdMarker when truncated: the upload id marker for the next page, else null
 */
public record UploadsPage(List<UploadInfo> uploads, boolean truncated, String nextKeyMarker,
        String nextUploadIdMarker) {
    public UploadsPage {
        uploads = List.copyOf(uploads);
    }
}
