package org.objrdma.s3.xml;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;

/**
 * Parses the request bodies S3 defines as XML (CompleteMultipartUpload, DeleteObjects) with a hardened
 * StAX reader: no DTD, no external entities, a byte limit; anything else is MalformedXML.
 */
public final class XmlBodies {

    /** One part of CompleteMultipartUpload, with the checksums the client listed (null if none). */
    public record CompletedPart(int partNumber, String etag, java.util.Map<String, String> checksums) {
    }

    /** One key of DeleteObjects. */
    public record ObjectToDelete(String key, String versionId) {
    }

    public record DeleteRequest(boolean quiet, List<ObjectToDelete> objects) {
    }

    private static final XMLInputFactory FACTORY = hardenedFactory();

    private XmlBodies() {
    }

    private static XMLInputFactory hardenedFactory() {
        // the JDK's own implementation, not whatever a bundle might have put first on a TCCL
        XMLInputFactory f = XMLInputFactory.newDefaultFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        f.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
        try {
            f.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        } catch (IllegalArgumentException ignored) {
            // not every implementation knows it; SUPPORT_DTD=false already refuses DTDs
        }
        return f;
    }

    /** {@code <CompleteMultipartUpload><Part><PartNumber/><ETag/>[<ChecksumCRC32/>...]</Part>...} */
    public static List<CompletedPart> completeMultipartUpload(InputStream body, int maxBytes, int maxParts)
            throws S3Exception {
        List<CompletedPart> parts = new ArrayList<>();
        Element root = parse(body, maxBytes);
        root.expectName("CompleteMultipartUpload");
        for (Element part : root.children) {
            part.expectName("Part");
            if (parts.size() == maxParts) {
                throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Part count must not exceed " + maxParts);
            }
            Integer number = null;
            String etag = null;
            java.util.Map<String, String> checksums = new java.util.LinkedHashMap<>();
            for (Element e : part.children) {
                switch (e.name) {
                    case "PartNumber" -> {
                        try {
                            number = Integer.parseInt(e.text.strip());
                        } catch (NumberFormatException x) {
                            throw malformed("PartNumber is not a number");
                        }
                    }
                    case "ETag" -> etag = e.text.strip();
                    default -> {
                        if (e.name.startsWith("Checksum")) {
                            checksums.put(e.name, e.text.strip());
                        }
                    }
                }
            }
            if (number == null || etag == null) {
                throw malformed("Each Part needs a PartNumber and an ETag");
            }
            parts.add(new CompletedPart(number, etag, checksums));
        }
        if (parts.isEmpty()) {
            throw malformed("CompleteMultipartUpload lists no Part");
        }
        return parts;
    }

    /** {@code <Delete><Quiet/>?<Object><Key/><VersionId/>?</Object>...</Delete>} */
    public static DeleteRequest deleteObjects(InputStream body, int maxBytes, int maxKeys) throws S3Exception {
        Element root = parse(body, maxBytes);
        root.expectName("Delete");
        boolean quiet = false;
        List<ObjectToDelete> objects = new ArrayList<>();
        for (Element e : root.children) {
            if (e.name.equals("Quiet")) {
                quiet = Boolean.parseBoolean(e.text.strip());
            } else if (e.name.equals("Object")) {
                String key = null;
                String version = null;
                for (Element c : e.children) {
                    if (c.name.equals("Key")) {
                        key = c.text;
                    } else if (c.name.equals("VersionId")) {
                        version = c.text;
                    }
                }
                if (key == null || key.isEmpty()) {
                    throw malformed("Each Object needs a Key");
                }
                objects.add(new ObjectToDelete(key, version));
                if (objects.size() > maxKeys) {
                    throw malformed("DeleteObjects takes at most " + maxKeys + " keys");
                }
            } else {
                throw malformed("Unexpected element " + e.name + " in Delete");
            }
        }
        if (objects.isEmpty()) {
            throw malformed("Delete lists no Object");
        }
        return new DeleteRequest(quiet, objects);
    }

    private static S3Exception malformed(String why) {
        return new S3Exception(S3ErrorCode.MALFORMED_XML,
                "The XML you provided was not well-formed or did not validate against our published schema: " + why);
    }

    /** A parsed element: local name, its text (concatenated), its children. */
    private static final class Element {
        final String name;
        final StringBuilder textBuf = new StringBuilder();
        final List<Element> children = new ArrayList<>();
        String text = "";

        Element(String name) {
            this.name = name;
        }

        void expectName(String expected) throws S3Exception {
            if (!name.equals(expected)) {
                throw malformed("expected " + expected + ", found " + name);
            }
        }
    }

    private static Element parse(InputStream body, int maxBytes) throws S3Exception {
        byte[] bytes;
        try {
            bytes = body.readNBytes(maxBytes + 1);
        } catch (org.objrdma.s3.S3BodyException e) {
            throw e.s3();
        } catch (IOException e) {
            throw new S3Exception(S3ErrorCode.INCOMPLETE_BODY, "Could not read the request body: " + e.getMessage());
        }
        if (bytes.length > maxBytes) {
            throw malformed("the body is larger than " + maxBytes + " bytes");
        }
        try {
            XMLStreamReader r = FACTORY.createXMLStreamReader(new java.io.ByteArrayInputStream(bytes));
            java.util.ArrayDeque<Element> stack = new java.util.ArrayDeque<>();
            Element root = null;
            while (r.hasNext()) {
                int ev = r.next();
                switch (ev) {
                    case XMLStreamConstants.DTD, XMLStreamConstants.ENTITY_REFERENCE ->
                        throw malformed("DTDs and entity references are not allowed");
                    case XMLStreamConstants.START_ELEMENT -> {
                        if (stack.size() == 8) {
                            throw malformed("nested too deeply");
                        }
                        Element e = new Element(r.getLocalName());
                        if (stack.isEmpty()) {
                            root = e;
                        } else {
                            stack.peek().children.add(e);
                        }
                        stack.push(e);
                    }
                    case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA -> {
                        if (!stack.isEmpty()) {
                            stack.peek().textBuf.append(r.getText());
                        }
                    }
                    case XMLStreamConstants.END_ELEMENT -> {
                        Element e = stack.pop();
                        e.text = e.textBuf.toString();
                    }
                    default -> {
                    }
                }
            }
            if (root == null) {
                throw malformed("empty document");
            }
            return root;
        } catch (XMLStreamException e) {
            throw malformed(e.getMessage());
        } catch (RuntimeException e) {
            // The JDK's StAX reader throws unchecked exceptions on some broken input (found by fuzzing: a bad
            // DOCTYPE makes it look up a message key its bundle lacks, MissingResourceException). Bad input is
            // the client's error, never a 500.
            throw malformed("unreadable XML (" + e.getClass().getSimpleName() + ")");
        }
    }
}
