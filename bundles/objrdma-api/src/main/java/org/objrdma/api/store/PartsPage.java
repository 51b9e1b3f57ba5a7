package org.objrdma.api.store;

import java.util.List;
import java.util.Objects;

/**
 * One ListParts page.
 *
 * @param upload               the upload
 * @param parts                ascending by part number
 * @param truncated            more follows
 * @param nextPartNumberMarker when truncated: the marker for the next page, else 0
 */
public record PartsPage(UploadInfo upload, List<PartInfo> parts, boolean truncated, int nextPartNumberMarker) {
    public PartsPage {
        Objects.requireNonNull(upload, "upload");
        parts = List.copyOf(parts);
    }
}
