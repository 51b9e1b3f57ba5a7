package org.objrdma.s3.xml;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;

/**
 * Parses the request bodies S3 defines as XML (CompleteMultipartUpload, DeleteObjects) as they stream, with
 * running limits ({@link BoundedXmlReader}): only the parts or keys the caller gets are kept, so a body costs
 * about its own size in heap, never a tree of every element. No DTD, no entity, UTF-8 only. Refusals:
 * MaxMessageLengthExceeded past the byte limit; KeyTooLongError for a key of more than 1024 characters;
 * InvalidArgument past the part limit; MalformedXML for everything else (shape, counts, depth, size of a
 * construct, more keys than allowed).
 */
public final class XmlBodies {

    /** One part of CompleteMultipartUpload, with the checksums the client listed (empty if none). */
    public record CompletedPart(int partNumber, String etag, java.util.Map<String, String> checksums) {
    }

    /** One key of DeleteObjects. */
    public record ObjectToDelete(String key, String versionId) {
    }

    public record DeleteRequest(boolean quiet, List<ObjectToDelete> objects) {
    }

    /** Elements one listed object or part may have, its own included: the known ones plus room for new ones. */
    private static final int ELEMENTS_PER_ENTRY = 10;
    /** Longest ETag, version id, checksum or number text kept, in characters (S3's are far shorter). */
    private static final int MAX_ETAG_CHARS = 256;
    private static final int MAX_VERSION_ID_CHARS = 1024;
    private static final int MAX_CHECKSUM_CHARS = 128;
    private static final int MAX_NUMBER_CHARS = 32;

    private XmlBodies() {
    }

    /**
     * {@code <CompleteMultipartUpload><Part><PartNumber/><ETag/>[<ChecksumCRC32/>...]</Part>...}: unknown
     * elements inside a Part are passed over; a checksum element is kept only for the algorithms S3 defines.
     */
    public static List<CompletedPart> completeMultipartUpload(InputStream body, int maxBytes, int maxParts)
            throws S3Exception {
        BoundedXmlReader xml = new BoundedXmlReader(body, maxBytes, 1 + (long) ELEMENTS_PER_ENTRY * maxParts);
        xml.root("CompleteMultipartUpload");
        List<CompletedPart> parts = new ArrayList<>();
        while (xml.nextChild()) {
            if (!xml.name().equals("Part")) {
                throw malformed("expected Part, found " + xml.name());
            }
            if (parts.size() == maxParts) {
                throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Part count must not exceed " + maxParts);
            }
            parts.add(part(xml));
        }
        xml.finish();
        if (parts.isEmpty()) {
            throw malformed("CompleteMultipartUpload lists no Part");
        }
        return parts;
    }

    private static CompletedPart part(BoundedXmlReader xml) throws S3Exception {
        Integer number = null;
        String etag = null;
        Map<String, String> checksums = Map.of();
        while (xml.nextChild()) {
            String name = xml.name();
            if (name.equals("PartNumber")) {
                String text = xml.text(MAX_NUMBER_CHARS, S3ErrorCode.MALFORMED_XML).strip();
                try {
                    number = Integer.parseInt(text);
                } catch (NumberFormatException x) {
                    throw malformed("PartNumber is not a number");
                }
            } else if (name.equals("ETag")) {
                etag = xml.text(MAX_ETAG_CHARS, S3ErrorCode.MALFORMED_XML).strip();
            } else if (isChecksumElement(name)) {
                if (checksums.isEmpty()) {
                    checksums = new HashMap<>(4);
                }
                checksums.put(name, xml.text(MAX_CHECKSUM_CHARS, S3ErrorCode.MALFORMED_XML).strip());
            } else {
                xml.skip();
            }
        }
        if (number == null || etag == null) {
            throw malformed("Each Part needs a PartNumber and an ETag");
        }
        return new CompletedPart(number, etag, checksums.isEmpty() ? Map.of() : Map.copyOf(checksums));
    }

    private static boolean isChecksumElement(String name) {
        for (ChecksumAlgorithm a : ChecksumAlgorithm.values()) {
            if (a.xmlElement().equals(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code <Delete><Quiet/>?<Object><Key/><VersionId/>?</Object>...</Delete>}: unknown elements inside an
     * Object are passed over, unknown elements inside Delete are MalformedXML.
     */
    public static DeleteRequest deleteObjects(InputStream body, int maxBytes, int maxKeys) throws S3Exception {
        BoundedXmlReader xml = new BoundedXmlReader(body, maxBytes, 2 + (long) ELEMENTS_PER_ENTRY * maxKeys);
        xml.root("Delete");
        boolean quiet = false;
        List<ObjectToDelete> objects = new ArrayList<>();
        while (xml.nextChild()) {
            String name = xml.name();
            if (name.equals("Quiet")) {
                quiet = Boolean.parseBoolean(xml.text(MAX_NUMBER_CHARS, S3ErrorCode.MALFORMED_XML).strip());
            } else if (name.equals("Object")) {
                if (objects.size() == maxKeys) {
                    throw malformed("DeleteObjects takes at most " + maxKeys + " keys");
                }
                objects.add(objectToDelete(xml));
            } else {
                throw malformed("Unexpected element " + name + " in Delete");
            }
        }
        xml.finish();
        if (objects.isEmpty()) {
            throw malformed("Delete lists no Object");
        }
        return new DeleteRequest(quiet, objects);
    }

    private static ObjectToDelete objectToDelete(BoundedXmlReader xml) throws S3Exception {
        String key = null;
        String version = null;
        while (xml.nextChild()) {
            String name = xml.name();
            if (name.equals("Key")) {
                // a key of more characters has more UTF-8 bytes than any store accepts
                key = xml.text(StoreLimits.MAX_KEY_BYTES, S3ErrorCode.KEY_TOO_LONG);
            } else if (name.equals("VersionId")) {
                version = xml.text(MAX_VERSION_ID_CHARS, S3ErrorCode.MALFORMED_XML);
            } else {
                xml.skip();
            }
        }
        if (key == null || key.isEmpty()) {
            throw malformed("Each Object needs a Key");
        }
        return new ObjectToDelete(key, version);
    }

    static S3Exception malformed(String why) {
        return new S3Exception(S3ErrorCode.MALFORMED_XML,
                "The XML you provided was not well-formed or did not validate against our published schema: " + why);
    }
}
