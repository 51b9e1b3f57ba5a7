package org.objrdma.store.fs.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32C;

/**
 * How a record sits at the end of a store file: {@code [data][record][length u32][crc32c u32][magic u64]}.
 * Data first means ranged reads use the object's own offsets and the record can be written once the
 * digests are known; the footer lets a reader find and verify the record from the end.
 */
final class RecordFrame {
    static final int FOOTER = 16;
    private static final long MAGIC = 0x6f626a72646d6131L; // "objrdma1"
    private static final int MAX_RECORD = 1 << 20;

    private RecordFrame() {
    }

    /** Appends {@code record} and its footer at the channel's position. */
    static void append(FileChannel channel, byte[] record) throws IOException {
        CRC32C crc = new CRC32C();
        crc.update(record);
        ByteBuffer buf = ByteBuffer.allocate(record.length + FOOTER);
        buf.put(record).putInt(record.length).putInt((int) crc.getValue()).putLong(MAGIC).flip();
        while (buf.hasRemaining()) {
            channel.write(buf);
        }
    }

    /** The record at the end of the file, verified; {@code dataLength} is what precedes it. */
    record Read(byte[] record, long dataLength) {
    }

    static Read read(FileChannel channel) throws IOException {
        long size = channel.size();
        if (size < FOOTER) {
            throw new IOException("too short for a record footer: " + size + " bytes");
        }
        ByteBuffer footer = readFully(channel, size - FOOTER, FOOTER);
        int length = footer.getInt();
        int expectedCrc = footer.getInt();
        if (footer.getLong() != MAGIC) {
            throw new IOException("no record footer (bad magic)");
        }
        if (length < 0 || length > MAX_RECORD || length > size - FOOTER) {
            throw new IOException("record length " + length + " is out of bounds");
        }
        byte[] record = readFully(channel, size - FOOTER - length, length).array();
        CRC32C crc = new CRC32C();
        crc.update(record);
        if ((int) crc.getValue() != expectedCrc) {
            throw new IOException("record checksum mismatch");
        }
        return new Read(record, size - FOOTER - length);
    }

    private static ByteBuffer readFully(FileChannel channel, long position, int length) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(length);
        while (buf.hasRemaining()) {
            if (channel.read(buf, position + buf.position()) < 0) {
                throw new IOException("file ended inside its record");
            }
        }
        return buf.flip();
    }
}
