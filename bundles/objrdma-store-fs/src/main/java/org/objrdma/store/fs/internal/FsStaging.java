package org.objrdma.store.fs.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.PartInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A temporary file in tmp/: bytes, then the record, then forced and renamed into place. */
final class FsStaging implements Backend.Staging {
    private static final Logger LOG = LoggerFactory.getLogger(FsStaging.class);
    private final Path file;
    private final boolean fsync;
    private final FileChannel channel;
    private boolean moved;

    FsStaging(Path file, boolean fsync) throws IOException {
        this.file = file;
        this.fsync = fsync;
        this.channel = OwnerOnly.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }

    @Override
    public void write(ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) {
            channel.write(bytes);
        }
    }

    @Override
    public void forceWritten() throws IOException {
        if (fsync) {
            channel.force(false);
        }
    }

    /** Appends {@code length} bytes of {@code source} (copy_file_range on Linux: no user-space copy). */
    void transferFrom(FileChannel source, long length) throws IOException {
        long done = 0;
        while (done < length) {
            long n = source.transferTo(done, length - done, channel);
            if (n <= 0) {
                throw new IOException("part ended after " + done + " of " + length + " bytes");
            }
            done += n;
        }
    }

    @Override
    public void sealObject(ObjectInfo info, PartLayout parts) throws IOException {
        seal(RecordCodec.object(info, parts));
    }

    @Override
    public void sealPart(PartInfo info) throws IOException {
        seal(RecordCodec.part(info));
    }

    private void seal(byte[] record) throws IOException {
        RecordFrame.append(channel, record);
        if (fsync) {
            channel.force(false);
        }
        channel.close();
    }

    void moveTo(Path target) throws IOException {
        Files.move(file, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        moved = true;
        if (fsync) {
            FsFiles.syncDirectory(target.getParent());
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
            if (!moved) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            LOG.warn("Could not remove abandoned write {}: {}; the next start removes it", file, e.toString());
        }
    }
}

