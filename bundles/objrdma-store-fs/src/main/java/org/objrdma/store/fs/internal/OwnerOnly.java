package org.objrdma.store.fs.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Creates the store's directories ({@code rwx------}) and files ({@code rw-------}) readable by the store's
 * own user only: objects are other principals' data. The mode is a {@link FileAttribute} of the creating call
 * (open(2)/mkdir(2) take it, then the process umask can only narrow it), so no file is ever visible with a
 * wider mode, as it would be between a create and a later chmod. On a file system without POSIX
 * permissions the attribute is left out (nothing to set).
 */
final class OwnerOnly {
    static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    private OwnerOnly() {
    }

    /** Like {@link Files#createDirectories}, every directory it creates owner-only. */
    static void createDirectories(Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath();
        if (Files.isDirectory(absolute)) {
            return;
        }
        Path parent = absolute.getParent();
        if (parent != null) {
            createDirectories(parent);
        }
        try {
            createDirectory(absolute);
        } catch (java.nio.file.FileAlreadyExistsException raced) {
            if (!Files.isDirectory(absolute)) {
                throw raced;
            }
        }
    }

    static void createDirectory(Path dir) throws IOException {
        if (posix(dir.getFileSystem())) {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIRECTORY));
        } else {
            Files.createDirectory(dir);
        }
    }

    /** {@link FileChannel#open} for writing; a file it creates is owner-only. */
    static FileChannel open(Path file, OpenOption... options) throws IOException {
        Set<OpenOption> set = new java.util.HashSet<>(java.util.List.of(options));
        if (posix(file.getFileSystem())) {
            return FileChannel.open(file, set, PosixFilePermissions.asFileAttribute(FILE));
        }
        return FileChannel.open(file, set);
    }

    /**
     * The permissions of {@code path} that reach beyond its owner (group or others), empty when there are
     * none or the file system has no POSIX permissions.
     */
    static Set<PosixFilePermission> beyondOwner(Path path) throws IOException {
        if (!posix(path.getFileSystem())) {
            return Set.of();
        }
        Set<PosixFilePermission> wider = EnumSet.noneOf(PosixFilePermission.class);
        wider.addAll(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
        wider.removeAll(EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                PosixFilePermission.OWNER_EXECUTE));
        return wider;
    }

    private static boolean posix(FileSystem fs) {
        return fs.supportedFileAttributeViews().contains("posix");
    }
}
