package org.objrdma.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.sdk.RdmaProtocol;
import org.objrdma.client.sdk.RdmaResult;
import org.objrdma.client.sdk.RdmaS3;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * Files to and from objects through one registered buffer of {@code chunk} bytes: a GET larger than the buffer is a
 * series of ranged GETs (each pinned to the object's ETag with If-Match, so a concurrent overwrite fails the
 * download instead of mixing versions), a PUT larger than it a multipart upload whose parts go over RDMA and whose
 * CompleteMultipartUpload goes over HTTP (aborted if a part fails). A download lands in a temporary file next to
 * the destination, moved over it only when complete: a failed get changes no file.
 */
final class FileTransfers {
    /** The smallest part S3 (and the embedded store) accepts but the last. */
    static final long MIN_PART = 5L << 20;
    static final int MAX_PARTS = 10_000;
    /** One registration, one request: the buffer never exceeds either limit. */
    static final long MAX_CHUNK = Math.min(ClientMemory.MAX_REGISTRATION, RdmaS3.MAX_REQUEST);

    /** What moved and how. */
    record Outcome(long bytes, long nanos, Set<RdmaProtocol> paths, Set<String> declines, int requests) {
    }

    private FileTransfers() {
    }

    static void checkChunk(long chunk) throws UserError {
        if (chunk < 4096 || chunk > MAX_CHUNK) {
            throw new UserError(ExitCodes.USAGE, "--chunk-size must be 4KiB.." + Sizes.human(MAX_CHUNK) + ", was "
                    + chunk);
        }
    }

    static Outcome get(Connection c, S3Uri from, Path to, long chunk, java.util.function.LongFunction<Progress> bar)
            throws UserError {
        checkChunk(chunk);
        if (Files.isDirectory(to)) {
            to = to.resolve(Path.of(from.key()).getFileName());
        }
        HeadObjectResponse head = c.s3.headObject(h -> h.bucket(from.bucket()).key(from.key()));
        long size = head.contentLength();
        Progress progress = bar.apply(size);
        Path dir = to.toAbsolutePath().getParent();
        Path part;
        try {
            part = Files.createTempFile(dir, "." + to.getFileName() + ".", ".part");
        } catch (IOException e) {
            throw new UserError(ExitCodes.LOCAL_IO, "cannot write into " + dir + ": " + e.getMessage());
        }
        Set<RdmaProtocol> paths = EnumSet.noneOf(RdmaProtocol.class);
        Set<String> declines = new LinkedHashSet<>();
        long start = System.nanoTime();
        int requests = 0;
        boolean done = false;
        try (ClientMemory mem = c.memory(Math.min(Math.max(size, 1), chunk));
                FileChannel out = FileChannel.open(part, StandardOpenOption.WRITE)) {
            long at = 0;
            do {
                long n = Math.min(chunk, size - at);
                GetObjectRequest.Builder req = GetObjectRequest.builder().bucket(from.bucket()).key(from.key())
                        .ifMatch(head.eTag());
                if (n > 0) {
                    req.range("bytes=" + at + "-" + (at + n - 1));
                }
                RdmaResult<?> r = c.rdma.getObject(req.build(), mem, 0);
                requests++;
                note(r, paths, declines);
                if (r.bytes() != n) {
                    throw new UserError(ExitCodes.FAILED, "the gateway sent " + r.bytes() + " bytes for the "
                            + n + " at offset " + at + " of " + from);
                }
                write(out, mem, n, part);
                at += n;
                progress.update(at);
            } while (at < size);
            out.force(false);
            done = true;
        } catch (IOException e) {
            throw new UserError(ExitCodes.LOCAL_IO, "cannot write " + part + ": " + e.getMessage());
        } finally {
            progress.done();
            if (!done) {
                deleteQuietly(part);
            }
        }
        move(part, to);
        return new Outcome(size, System.nanoTime() - start, paths, declines, requests);
    }

    static Outcome put(Connection c, Path from, S3Uri to, long chunk, Progress progress) throws UserError {
        checkChunk(chunk);
        long size;
        try {
            size = Files.size(from);
        } catch (NoSuchFileException e) {
            throw new UserError(ExitCodes.LOCAL_IO, "no such file: " + from);
        } catch (IOException e) {
            throw new UserError(ExitCodes.LOCAL_IO, "cannot read " + from + ": " + e.getMessage());
        }
        if (!Files.isRegularFile(from)) {
            throw new UserError(ExitCodes.LOCAL_IO, from + " is not a regular file");
        }
        if (size > chunk && chunk < MIN_PART) {
            throw new UserError(ExitCodes.USAGE, from + " (" + size + " bytes) needs a multipart upload, whose parts"
                    + " are at least 5MiB: raise --chunk-size");
        }
        if ((size + chunk - 1) / chunk > MAX_PARTS) {
            throw new UserError(ExitCodes.USAGE, from + " needs more than " + MAX_PARTS + " parts of "
                    + Sizes.human(chunk) + ": raise --chunk-size");
        }
        Set<RdmaProtocol> paths = EnumSet.noneOf(RdmaProtocol.class);
        Set<String> declines = new LinkedHashSet<>();
        long start = System.nanoTime();
        try (ClientMemory mem = c.memory(Math.min(Math.max(size, 1), chunk));
                FileChannel in = FileChannel.open(from, StandardOpenOption.READ)) {
            if (size <= chunk) {
                read(in, mem, size, from);
                note(c.rdma.putObject(PutObjectRequest.builder().bucket(to.bucket()).key(to.key()).build(), mem, 0,
                        size), paths, declines);
                progress.update(size);
                return new Outcome(size, System.nanoTime() - start, paths, declines, 1);
            }
            String upload = c.s3.createMultipartUpload(b -> b.bucket(to.bucket()).key(to.key())).uploadId();
            boolean completed = false;
            try {
                List<CompletedPart> parts = new ArrayList<>();
                long at = 0;
                for (int n = 1; at < size; n++) {
                    long len = Math.min(chunk, size - at);
                    read(in, mem, len, from);
                    RdmaResult<software.amazon.awssdk.services.s3.model.UploadPartResponse> r = c.rdma.uploadPart(
                            UploadPartRequest.builder().bucket(to.bucket()).key(to.key()).uploadId(upload)
                                    .partNumber(n).build(), mem, 0, len);
                    note(r, paths, declines);
                    parts.add(CompletedPart.builder().partNumber(n).eTag(r.response().eTag()).build());
                    at += len;
                    progress.update(at);
                }
                c.s3.completeMultipartUpload(b -> b.bucket(to.bucket()).key(to.key()).uploadId(upload)
                        .multipartUpload(m -> m.parts(parts)));
                completed = true;
                return new Outcome(size, System.nanoTime() - start, paths, declines, parts.size() + 2);
            } finally {
                if (!completed) {
                    abortQuietly(c, to, upload);
                }
            }
        } catch (IOException e) {
            throw new UserError(ExitCodes.LOCAL_IO, "cannot read " + from + ": " + e.getMessage());
        } finally {
            progress.done();
        }
    }

    static void note(RdmaResult<?> r, Set<RdmaProtocol> paths, Set<String> declines) {
        paths.add(r.path());
        if (r.declineReason() != null) {
            declines.add(r.declineReason());
        }
    }

    private static void read(FileChannel in, ClientMemory mem, long n, Path from) throws IOException, UserError {
        ByteBuffer b = mem.segment().asSlice(0, n).asByteBuffer();
        while (b.hasRemaining()) {
            if (in.read(b) < 0) {
                throw new UserError(ExitCodes.LOCAL_IO, from + " became shorter while it was read");
            }
        }
    }

    private static void write(FileChannel out, ClientMemory mem, long n, Path part) throws IOException {
        ByteBuffer b = mem.segment().asSlice(0, n).asByteBuffer();
        while (b.hasRemaining()) {
            out.write(b);
        }
    }

    private static void move(Path part, Path to) throws UserError {
        try {
            try {
                Files.move(part, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(part, to, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            deleteQuietly(part);
            throw new UserError(ExitCodes.LOCAL_IO, "cannot write " + to + ": " + e.getMessage());
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // a leftover .part file is harmless and named as such
        }
    }

    private static void abortQuietly(Connection c, S3Uri to, String upload) {
        try {
            c.s3.abortMultipartUpload(b -> b.bucket(to.bucket()).key(to.key()).uploadId(upload));
        } catch (RuntimeException ignored) {
            // the failure that got us here is the one to report
        }
    }
}
