package org.objrdma.store.fs.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.objrdma.api.store.BucketInfo;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.PartInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The file layout (see the README): under the root, {@code buckets/<bucket>/bucket.meta},
 * {@code objects/<sha256 of the key>} (one file per version: bytes, then the record) and
 * {@code uploads/<upload id>/upload.meta} with {@code <part number>.part} files; everything is written in
 * {@code tmp/} first and renamed into place, so a crash leaves only {@code tmp/} entries, which the next
 * start deletes. A {@code .lock} file held with an OS lock keeps a second store off the same root.
 */
final class FsBackend implements Backend {
    private static final Logger LOG = LoggerFactory.getLogger(FsBackend.class);
    static final String BUCKETS = "buckets";
    static final String TMP = "tmp";
    static final String OBJECTS = "objects";
    static final String UPLOADS = "uploads";
    static final String BUCKET_META = "bucket.meta";
    static final String UPLOAD_META = "upload.meta";
    static final String PART_SUFFIX = ".part";

    private final Path root;
    private final Path buckets;
    private final Path tmp;
    private final boolean fsync;
    private final SecureRandom random = new SecureRandom();
    private final FileChannel lockChannel;
    private final FileLock lock;

    FsBackend(Path root, boolean fsync) throws IOException {
        this.root = root.toAbsolutePath().normalize();
        this.buckets = this.root.resolve(BUCKETS);
        this.tmp = this.root.resolve(TMP);
        this.fsync = fsync;
        boolean existed = Files.isDirectory(this.root);
        OwnerOnly.createDirectories(buckets);
        OwnerOnly.createDirectories(tmp);
        if (existed) {
            warnIfReadableByOthers(this.root);
        }
        lockChannel = OwnerOnly.open(this.root.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held;
        try {
            held = lockChannel.tryLock();
        } catch (OverlappingFileLockException sameJvm) {
            held = null;
        }
        if (held == null) {
            lockChannel.close();
            throw new IOException("another store is using " + this.root);
        }
        lock = held;
    }

    Path root() {
        return root;
    }

    /**
     * A root this store did not create keeps the mode it has (an operator may have widened it on purpose, e.g.
     * for a backup group); everything the store creates under it is owner-only whatever the root's mode.
     */
    private static void warnIfReadableByOthers(Path root) throws IOException {
        if (!OwnerOnly.beyondOwner(root).isEmpty()) {
            LOG.warn("The object store root {} is accessible beyond its owner ({}); the store creates it 0700 and "
                    + "its files 0600 -- chmod 700 it unless that is intended", root,
                    PosixFilePermissions.toString(Files.getPosixFilePermissions(root)));
        }
    }

    // ---- start

    @Override
    public Loaded load() throws IOException {
        int leftovers = FsFiles.deleteChildren(tmp);
        if (leftovers > 0) {
            LOG.info("Removed {} leftovers of interrupted writes from {}", leftovers, tmp);
            syncDir(tmp);
        }
        List<LoadedBucket> out = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(buckets)) {
            for (Path dir : dirs) {
                LoadedBucket b = loadBucket(dir);
                if (b != null) {
                    out.add(b);
                }
            }
        }
        return new Loaded(out);
    }

    private LoadedBucket loadBucket(Path dir) throws IOException {
        BucketInfo info;
        try {
            info = RecordCodec.bucket(FsFiles.readRecord(dir.resolve(BUCKET_META)).record());
        } catch (IOException e) {
            LOG.warn("Ignoring {}: not a bucket of this store ({})", dir, e.toString());
            return null;
        }
        if (!info.name().equals(dir.getFileName().toString())) {
            LOG.warn("Ignoring {}: its record names bucket {}", dir, info.name());
            return null;
        }
        List<ObjectInfo> objects = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir.resolve(OBJECTS))) {
            for (Path file : files) {
                try {
                    ObjectInfo o = RecordCodec.object(FsFiles.readRecord(file).record()).info();
                    if (!file.getFileName().toString().equals(fileName(o.key()))) {
                        throw new IOException("its record names key " + o.key());
                    }
                    objects.add(o);
                } catch (IOException | RuntimeException e) {
                    LOG.warn("Ignoring object file {}: {}", file, e.toString());
                }
            }
        }
        List<LoadedUpload> uploads = new ArrayList<>();
        try (DirectoryStream<Path> uploadDirs = Files.newDirectoryStream(dir.resolve(UPLOADS))) {
            for (Path uploadDir : uploadDirs) {
                try {
                    uploads.add(loadUpload(uploadDir));
                } catch (IOException | RuntimeException e) {
                    LOG.warn("Ignoring upload {}: {}", uploadDir, e.toString());
                }
            }
        }
        return new LoadedBucket(info, objects, uploads);
    }

    private LoadedUpload loadUpload(Path dir) throws IOException {
        UploadRecord upload = RecordCodec.upload(FsFiles.readRecord(dir.resolve(UPLOAD_META)).record());
        if (!upload.info().uploadId().equals(dir.getFileName().toString())) {
            throw new IOException("its record names upload " + upload.info().uploadId());
        }
        List<PartInfo> parts = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + PART_SUFFIX)) {
            for (Path file : files) {
                RecordFrame.Read read = FsFiles.readRecord(file);
                PartInfo part = RecordCodec.part(read.record());
                if (read.dataLength() != part.size() || !file.getFileName().toString().equals(partName(part.partNumber()))) {
                    throw new IOException("part file " + file + " does not match its record");
                }
                parts.add(part);
            }
        }
        return new LoadedUpload(upload, parts);
    }

    // ---- names

    /** Keys never become paths: the file name is the SHA-256 of the key's UTF-8 bytes. */
    static String fileName(String key) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }

    static String partName(int partNumber) {
        return String.format("%05d%s", partNumber, PART_SUFFIX);
    }

    private Path bucketDir(String bucket) {
        return buckets.resolve(bucket);
    }

    private Path uploadDir(String bucket, String uploadId) {
        return bucketDir(bucket).resolve(UPLOADS).resolve(uploadId);
    }

    private Path tmpName(String suffix) {
        byte[] id = new byte[12];
        random.nextBytes(id);
        return tmp.resolve(HexFormat.of().formatHex(id) + suffix);
    }

    // ---- buckets and uploads: a directory made in tmp/, then renamed into place

    @Override
    public void createBucket(BucketInfo bucket) throws IOException {
        Path staging = tmpName(".bucket");
        OwnerOnly.createDirectory(staging);
        OwnerOnly.createDirectory(staging.resolve(OBJECTS));
        OwnerOnly.createDirectory(staging.resolve(UPLOADS));
        writeRecordFile(staging.resolve(BUCKET_META), RecordCodec.bucket(bucket));
        syncDir(staging);
        moveIntoPlace(staging, bucketDir(bucket.name()));
    }

    /** The new record is written beside the old one in tmp/, then renamed over it. */
    @Override
    public void updateBucket(BucketInfo bucket) throws IOException {
        Path staging = tmpName(".bucketmeta");
        writeRecordFile(staging, RecordCodec.bucket(bucket));
        moveIntoPlace(staging, bucketDir(bucket.name()).resolve(BUCKET_META));
    }

    @Override
    public void deleteBucket(String bucket) throws IOException {
        removeDirectory(bucketDir(bucket));
    }

    @Override
    public void createUpload(String bucket, UploadRecord upload) throws IOException {
        Path staging = tmpName(".upload");
        OwnerOnly.createDirectory(staging);
        writeRecordFile(staging.resolve(UPLOAD_META), RecordCodec.upload(upload));
        syncDir(staging);
        moveIntoPlace(staging, uploadDir(bucket, upload.info().uploadId()));
    }

    @Override
    public void deleteUpload(String bucket, String uploadId) throws IOException {
        removeDirectory(uploadDir(bucket, uploadId));
    }

    /** Renamed out of sight into tmp/ first, so a crash mid-delete leaves nothing half-visible. */
    private void removeDirectory(Path dir) throws IOException {
        Path doomed = tmpName(".deleted");
        Files.move(dir, doomed, StandardCopyOption.ATOMIC_MOVE);
        syncDir(dir.getParent());
        FsFiles.deleteTree(doomed);
    }

    private void writeRecordFile(Path file, byte[] record) throws IOException {
        try (FileChannel ch = OwnerOnly.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            RecordFrame.append(ch, record);
            if (fsync) {
                ch.force(true);
            }
        }
    }

    private void moveIntoPlace(Path from, Path to) throws IOException {
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        syncDir(to.getParent());
    }

    private void syncDir(Path dir) throws IOException {
        if (fsync) {
            FsFiles.syncDirectory(dir);
        }
    }

    // ---- objects and parts

    @Override
    public Staging stage() throws IOException {
        return new FsStaging(tmpName(".put"), fsync);
    }

    @Override
    public void commitObject(String bucket, String key, Staging sealed) throws IOException {
        ((FsStaging) sealed).moveTo(bucketDir(bucket).resolve(OBJECTS).resolve(fileName(key)));
    }

    @Override
    public void commitPart(String bucket, String uploadId, int partNumber, Staging sealed) throws IOException {
        ((FsStaging) sealed).moveTo(uploadDir(bucket, uploadId).resolve(partName(partNumber)));
    }

    @Override
    public void deleteObject(String bucket, String key) throws IOException {
        Path file = bucketDir(bucket).resolve(OBJECTS).resolve(fileName(key));
        if (Files.deleteIfExists(file)) {
            syncDir(file.getParent());
        }
    }

    @Override
    public BlobReader openObject(String bucket, String key) throws IOException {
        FileChannel ch;
        try {
            ch = FileChannel.open(bucketDir(bucket).resolve(OBJECTS).resolve(fileName(key)), StandardOpenOption.READ);
        } catch (NoSuchFileException gone) {
            return null;
        }
        try {
            RecordFrame.Read read = RecordFrame.read(ch);
            RecordCodec.StoredObject stored = RecordCodec.object(read.record());
            if (read.dataLength() != stored.info().size() || !stored.info().key().equals(key)) {
                throw new IOException("the file of " + key + " does not match its record");
            }
            return new FsReader(ch, stored);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    @Override
    public void appendPart(String bucket, String uploadId, PartInfo part, Staging target) throws IOException {
        try (FileChannel in = FileChannel.open(uploadDir(bucket, uploadId).resolve(partName(part.partNumber())),
                StandardOpenOption.READ)) {
            ((FsStaging) target).transferFrom(in, part.size());
        }
    }

    /** Releases the root; idempotent. */
    @Override
    public void close() throws IOException {
        if (!lockChannel.isOpen()) {
            return;
        }
        try {
            lock.release();
        } finally {
            lockChannel.close();
        }
    }
}
