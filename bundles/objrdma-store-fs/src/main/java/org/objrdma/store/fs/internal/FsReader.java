package org.objrdma.store.fs.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import org.objrdma.api.store.ObjectInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A version opened by its file: renames and deletes of the key do not affect an open channel. */
final class FsReader implements Backend.BlobReader {
    private static final Logger LOG = LoggerFactory.getLogger(FsReader.class);
    private final FileChannel channel;
    private final ObjectInfo info;
    private final PartLayout parts;

    FsReader(FileChannel channel, RecordCodec.StoredObject stored) {
        this.channel = channel;
        this.info = stored.info();
        this.parts = stored.parts();
    }

    @Override
    public PartLayout parts() {
        return parts;
    }

    @Override
    public ObjectInfo info() {
        return info;
    }

    @Override
    public int read(long position, ByteBuffer destination) throws IOException {
        long left = info.size() - position;
        if (left <= 0) {
            return -1;
        }
        if (destination.remaining() > left) {
            ByteBuffer bounded = destination.slice().limit((int) left);
            int n = channel.read(bounded, position);
            destination.position(destination.position() + Math.max(n, 0));
            return n;
        }
        return channel.read(destination, position);
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("closing a reader: {}", e.toString());
        }
    }
}
