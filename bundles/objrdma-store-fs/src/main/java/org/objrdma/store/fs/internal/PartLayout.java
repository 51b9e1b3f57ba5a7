package org.objrdma.store.fs.internal;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.PartRange;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;

/**
 * The part boundaries of one object version, kept in its record: part sizes run-length coded (a
 * multipart upload is usually N equal parts and a shorter last one, so two runs), with the offsets summed
 * once so a part is found by binary search. A single put is one part, the whole object.
 */
final class PartLayout {
    private final int[] runCounts;
    private final long[] runSizes;
    /** First part number (1-based) and first byte of each run. */
    private final int[] runFirstPart;
    private final long[] runFirstByte;
    private final int partsCount;
    private final long size;

    private PartLayout(int[] runCounts, long[] runSizes) {
        this.runCounts = runCounts;
        this.runSizes = runSizes;
        runFirstPart = new int[runCounts.length];
        runFirstByte = new long[runCounts.length];
        int part = 1;
        long bytes = 0;
        for (int i = 0; i < runCounts.length; i++) {
            runFirstPart[i] = part;
            runFirstByte[i] = bytes;
            part += runCounts[i];
            bytes = Math.addExact(bytes, Math.multiplyExact(runSizes[i], runCounts[i]));
        }
        partsCount = part - 1;
        size = bytes;
    }

    /** One part of {@code size} bytes: a single put, or a record written before part sizes were kept. */
    static PartLayout single(long size) {
        return new PartLayout(new int[] {1}, new long[] {size});
    }

    /** The parts a multipart upload was completed with, in order. */
    static PartLayout of(List<PartInfo> parts) {
        int[] counts = new int[parts.size()];
        long[] sizes = new long[parts.size()];
        int runs = 0;
        for (PartInfo p : parts) {
            if (runs > 0 && sizes[runs - 1] == p.size()) {
                counts[runs - 1]++;
            } else {
                sizes[runs] = p.size();
                counts[runs++] = 1;
            }
        }
        return new PartLayout(Arrays.copyOf(counts, runs), Arrays.copyOf(sizes, runs));
    }

    int partsCount() {
        return partsCount;
    }

    long size() {
        return size;
    }

    /** @throws StoreException INVALID_ARGUMENT outside 1..10000, INVALID_PART_NUMBER past the last part */
    PartRange range(int partNumber) throws StoreException {
        StoreLimits.validatePartNumber(partNumber);
        if (partNumber > partsCount) {
            throw PartRange.notSatisfiable(partNumber, partsCount);
        }
        int run = Arrays.binarySearch(runFirstPart, partNumber);
        if (run < 0) {
            run = -run - 2;
        }
        long offset = runFirstByte[run] + (partNumber - runFirstPart[run]) * runSizes[run];
        return new PartRange(partNumber, partsCount, offset, runSizes[run]);
    }

    void write(DataOutputStream out) throws IOException {
        out.writeInt(runCounts.length);
        for (int i = 0; i < runCounts.length; i++) {
            out.writeInt(runCounts[i]);
            out.writeLong(runSizes[i]);
        }
    }

    /**
     * Reads what {@link #write} wrote and checks it against the record's own size and parts count.
     *
     * @throws IOException a layout that does not add up (a damaged record)
     */
    static PartLayout read(DataInputStream in, long objectSize, int recordedParts) throws IOException {
        int runs = in.readInt();
        if (runs < 1 || runs > StoreLimits.MAX_PART_NUMBER) {
            throw new IOException("part layout with " + runs + " runs");
        }
        int[] counts = new int[runs];
        long[] sizes = new long[runs];
        for (int i = 0; i < runs; i++) {
            counts[i] = in.readInt();
            sizes[i] = in.readLong();
            if (counts[i] < 1 || counts[i] > StoreLimits.MAX_PART_NUMBER || sizes[i] < 0) {
                throw new IOException("part layout run " + counts[i] + " x " + sizes[i]);
            }
        }
        PartLayout layout;
        try {
            layout = new PartLayout(counts, sizes);
        } catch (ArithmeticException overflow) {
            throw new IOException("part layout overflows", overflow);
        }
        if (layout.size != objectSize || layout.partsCount != recordedParts) {
            throw new IOException("part layout of " + layout.partsCount + " parts, " + layout.size
                    + " bytes does not match the record's " + recordedParts + " parts, " + objectSize + " bytes");
        }
        return layout;
    }
}
