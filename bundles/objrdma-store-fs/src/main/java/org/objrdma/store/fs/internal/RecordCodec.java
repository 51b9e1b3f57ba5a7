package org.objrdma.store.fs.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.objrdma.api.store.BucketInfo;
import org.objrdma.api.store.CannedAcl;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.UploadInfo;

/**
 * The binary form of the records the file store keeps (object, part, bucket, upload): a kind byte, then
 * fields; strings as a length (-1 for absent) and UTF-8 bytes, so any header value round-trips.
 */
final class RecordCodec {
    private static final byte OBJECT = 1;
    private static final byte PART = 2;
    private static final byte BUCKET = 3;
    private static final byte UPLOAD = 4;

    private RecordCodec() {
    }

    /** An object's record: what HEAD reports, and where its parts lie. */
    record StoredObject(ObjectInfo info, PartLayout parts) {
    }

    /**
     * The part layout follows the parts count, only for a multipart object; a record without it (a single
     * put, or one written before layouts were kept) reads as one part. Older readers stop before it.
     */
    static byte[] object(ObjectInfo o, PartLayout parts) {
        return write(OBJECT, out -> {
            string(out, o.key());
            out.writeLong(o.size());
            string(out, o.etag());
            instant(out, o.lastModified());
            attributes(out, o.attributes());
            checksums(out, o.checksums());
            out.writeInt(o.partsCount());
            if (o.partsCount() > 0) {
                parts.write(out);
            }
            acl(out, o.attributes().acl());
        });
    }

    static StoredObject object(byte[] record) throws IOException {
        DataInputStream in = open(record, OBJECT);
        ObjectInfo info = new ObjectInfo(string(in), in.readLong(), string(in), instant(in), attributes(in),
                checksums(in), in.readInt());
        PartLayout parts = info.partsCount() > 0 && in.available() > 0
                ? PartLayout.read(in, info.size(), info.partsCount())
                : PartLayout.single(info.size());
        CannedAcl acl = acl(in);
        if (acl != CannedAcl.PRIVATE) {
            info = new ObjectInfo(info.key(), info.size(), info.etag(), info.lastModified(),
                    info.attributes().withAcl(acl), info.checksums(), info.partsCount());
        }
        return new StoredObject(info, parts);
    }

    static byte[] part(PartInfo p) {
        return write(PART, out -> {
            out.writeInt(p.partNumber());
            string(out, p.etag());
            out.writeLong(p.size());
            instant(out, p.lastModified());
            checksums(out, p.checksums());
        });
    }

    static PartInfo part(byte[] record) throws IOException {
        DataInputStream in = open(record, PART);
        return new PartInfo(in.readInt(), string(in), in.readLong(), instant(in), checksums(in));
    }

    static byte[] bucket(BucketInfo b) {
        return write(BUCKET, out -> {
            string(out, b.name());
            instant(out, b.created());
            string(out, b.owner());
            acl(out, b.acl());
        });
    }

    static BucketInfo bucket(byte[] record) throws IOException {
        DataInputStream in = open(record, BUCKET);
        return new BucketInfo(string(in), instant(in), string(in), acl(in));
    }

    static byte[] upload(UploadRecord u) {
        return write(UPLOAD, out -> {
            string(out, u.info().key());
            string(out, u.info().uploadId());
            instant(out, u.info().initiated());
            string(out, u.info().checksumAlgorithm() == null ? null : u.info().checksumAlgorithm().name());
            attributes(out, u.attributes());
            acl(out, u.attributes().acl());
        });
    }

    static UploadRecord upload(byte[] record) throws IOException {
        DataInputStream in = open(record, UPLOAD);
        String key = string(in);
        String id = string(in);
        Instant initiated = instant(in);
        String algorithm = string(in);
        ObjectAttributes attributes = attributes(in);
        return new UploadRecord(new UploadInfo(key, id, initiated,
                algorithm == null ? null : ChecksumAlgorithm.valueOf(algorithm)), attributes.withAcl(acl(in)));
    }

    // ---- fields

    private interface Fields {
        void write(DataOutputStream out) throws IOException;
    }

    private static byte[] write(byte kind, Fields fields) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(kind);
            fields.write(out);
        } catch (IOException impossible) {
            throw new IllegalStateException("writing to memory failed", impossible);
        }
        return bytes.toByteArray();
    }

    private static DataInputStream open(byte[] record, byte kind) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(record));
        byte actual = in.readByte();
        if (actual != kind) {
            throw new IOException("record kind " + actual + " where " + kind + " was expected");
        }
        return in;
    }

    private static void string(DataOutputStream out, String s) throws IOException {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(utf8.length);
        out.write(utf8);
    }

    private static String string(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n == -1) {
            return null;
        }
        if (n < 0 || n > in.available()) {
            throw new IOException("string length " + n + " is out of bounds");
        }
        return new String(in.readNBytes(n), StandardCharsets.UTF_8);
    }

    private static void instant(DataOutputStream out, Instant t) throws IOException {
        out.writeLong(t.getEpochSecond());
        out.writeInt(t.getNano());
    }

    private static Instant instant(DataInputStream in) throws IOException {
        return Instant.ofEpochSecond(in.readLong(), in.readInt());
    }

    private static void attributes(DataOutputStream out, ObjectAttributes a) throws IOException {
        string(out, a.contentType());
        string(out, a.contentEncoding());
        string(out, a.contentDisposition());
        string(out, a.contentLanguage());
        string(out, a.cacheControl());
        string(out, a.expires());
        out.writeInt(a.userMetadata().size());
        for (Map.Entry<String, String> e : a.userMetadata().entrySet()) {
            string(out, e.getKey());
            string(out, e.getValue());
        }
    }

    private static ObjectAttributes attributes(DataInputStream in) throws IOException {
        String type = string(in);
        String encoding = string(in);
        String disposition = string(in);
        String language = string(in);
        String cache = string(in);
        String expires = string(in);
        int n = in.readInt();
        Map<String, String> meta = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            meta.put(string(in), string(in));
        }
        return new ObjectAttributes(type, encoding, disposition, language, cache, expires, meta);
    }

    /**
     * The canned ACL, the last field of a record (since store API 2.4) by its S3 name; a record written before ACLs
     * were kept ends before it and reads as private.
     */
    private static void acl(DataOutputStream out, CannedAcl acl) throws IOException {
        string(out, acl.s3Name());
    }

    private static CannedAcl acl(DataInputStream in) throws IOException {
        if (in.available() == 0) {
            return CannedAcl.PRIVATE;
        }
        String name = string(in);
        return CannedAcl.of(name).orElseThrow(() -> new IOException("unknown canned ACL '" + name + "' in a record"));
    }

    private static void checksums(DataOutputStream out, Map<ChecksumAlgorithm, String> checksums) throws IOException {
        out.writeInt(checksums.size());
        for (Map.Entry<ChecksumAlgorithm, String> e : new java.util.TreeMap<>(checksums).entrySet()) {
            string(out, e.getKey().name());
            string(out, e.getValue());
        }
    }

    private static Map<ChecksumAlgorithm, String> checksums(DataInputStream in) throws IOException {
        int n = in.readInt();
        Map<ChecksumAlgorithm, String> out = new EnumMap<>(ChecksumAlgorithm.class);
        for (int i = 0; i < n; i++) {
            out.put(ChecksumAlgorithm.valueOf(string(in)), string(in));
        }
        return out;
    }
}
