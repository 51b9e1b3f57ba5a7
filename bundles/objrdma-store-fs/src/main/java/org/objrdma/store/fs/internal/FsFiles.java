package org.objrdma.store.fs.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** File-system chores of {@link FsBackend}: directory fsync, record files, recursive removal. */
final class FsFiles {
    private FsFiles() {
    }

    /** Makes a directory's entries (a rename into it) durable. */
    static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    static RecordFrame.Read readRecord(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return RecordFrame.read(ch);
        }
    }

    /** Deletes everything inside {@code dir}; returns how many top-level entries went. */
    static int deleteChildren(Path dir) throws IOException {
        int count = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                deleteTree(p);
                count++;
            }
        }
        return count;
    }

    /** Deletes a file or a directory tree, never following links out of it. */
    static void deleteTree(Path p) throws IOException {
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            deleteChildren(p);
        }
        Files.deleteIfExists(p);
    }
}
