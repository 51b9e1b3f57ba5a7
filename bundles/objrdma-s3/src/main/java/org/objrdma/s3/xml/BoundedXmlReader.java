package org.objrdma.s3.xml;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PushbackInputStream;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import javax.xml.XMLConstants;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.objrdma.s3.S3BodyException;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;

/**
 * A pull parser over one XML request body with running limits, so that what a body costs in heap is what the
 * caller keeps, never a tree of the whole document: the byte limit ({@link CappedBodyInputStream}), every
 * markup construct bounded ({@link MarkupBoundingReader}), a count of elements, a nesting depth, and a length
 * for every text the caller reads. The JDK's own StAX implementation, with DTDs and external entities off; the
 * body is UTF-8 (as S3 requires). Every refusal is an {@link S3Exception}: the S3 error the body stream raised
 * (a byte limit, a payload hash, a chunk signature), else MalformedXML.
 */
final class BoundedXmlReader {

    /** Deepest nesting accepted: the S3 bodies are three levels deep; a little room for unknown elements. */
    static final int MAX_DEPTH = 6;
    /** Longest tag (with its attributes), comment, CDATA section or processing instruction, in characters. */
    static final int MAX_MARKUP_CHARS = 4096;
    /** Most attributes one element may carry (S3 bodies carry at most a namespace declaration). */
    private static final int MAX_ATTRIBUTES = 16;
    /** Longest element or attribute name. */
    private static final int MAX_NAME_CHARS = 256;

    private static final XMLInputFactory FACTORY = hardenedFactory();

    private final CappedBodyInputStream body;
    private final XMLStreamReader reader;
    private final long maxElements;
    private long elements;
    private int depth;

    BoundedXmlReader(InputStream in, int maxBytes, long maxElements) throws S3Exception {
        this.body = new CappedBodyInputStream(in, maxBytes);
        this.maxElements = maxElements;
        try {
            InputStream text = withoutUtf8Bom(body);
            var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT);
            this.reader = FACTORY.createXMLStreamReader(
                    new MarkupBoundingReader(new InputStreamReader(text, decoder), MAX_MARKUP_CHARS));
        } catch (XMLStreamException | IOException | RuntimeException e) {
            throw refusal(e);
        }
    }

    private static XMLInputFactory hardenedFactory() {
        // the JDK's own implementation, not whatever a bundle might have put first on a TCCL
        XMLInputFactory f = XMLInputFactory.newDefaultFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        f.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
        f.setProperty(XMLInputFactory.IS_COALESCING, false);
        f.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        // the JDK's own processing limits, tightened to what S3 bodies need (names and attributes are buffered
        // whole by the reader; MarkupBoundingReader bounds them too, these make the reader say so first)
        f.setProperty("jdk.xml.elementAttributeLimit", Integer.toString(MAX_ATTRIBUTES));
        f.setProperty("jdk.xml.maxXMLNameLimit", Integer.toString(MAX_NAME_CHARS));
        f.setProperty("jdk.xml.maxElementDepth", Integer.toString(MAX_DEPTH));
        return f;
    }

    private static InputStream withoutUtf8Bom(InputStream in) throws IOException {
        PushbackInputStream p = new PushbackInputStream(in, 3);
        byte[] head = p.readNBytes(3);
        boolean bom = head.length == 3 && (head[0] & 0xff) == 0xEF && (head[1] & 0xff) == 0xBB
                && (head[2] & 0xff) == 0xBF;
        if (!bom) {
            p.unread(head);
        }
        return p;
    }

    /**
     * The root element: the first element of the document, which must be named {@code name}.
     */
    void root(String name) throws S3Exception {
        if (next() != XMLStreamConstants.START_ELEMENT) {
            throw XmlBodies.malformed("empty document");
        }
        if (!reader.getLocalName().equals(name)) {
            throw XmlBodies.malformed("expected " + name + ", found " + reader.getLocalName());
        }
    }

    /**
     * Moves to the next child of the element last entered: true at its start, false at the parent's end.
     * Character data between children is dropped unread (it is never kept).
     */
    boolean nextChild() throws S3Exception {
        return inside(next()) == XMLStreamConstants.START_ELEMENT;
    }

    /** The local name of the element the reader is at (namespaces are not checked, as before). */
    String name() {
        return reader.getLocalName();
    }

    /**
     * At an element's start: its text, read to its end. An element inside it is MalformedXML; text longer than
     * {@code maxChars} is refused with {@code tooLong} before more of it is kept.
     */
    String text(int maxChars, S3ErrorCode tooLong) throws S3Exception {
        String element = reader.getLocalName();
        StringBuilder text = new StringBuilder();
        try {
            while (true) {
                int event = reader.next();
                switch (event) {
                    case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA, XMLStreamConstants.SPACE -> {
                        if (text.length() + reader.getTextLength() > maxChars) {
                            throw new S3Exception(tooLong, (tooLong == S3ErrorCode.MALFORMED_XML
                                    ? "The XML you provided was not well-formed or did not validate against our "
                                            + "published schema: " : "")
                                    + element + " is longer than " + maxChars + " characters");
                        }
                        text.append(reader.getTextCharacters(), reader.getTextStart(), reader.getTextLength());
                    }
                    case XMLStreamConstants.START_ELEMENT -> throw XmlBodies.malformed(element + " holds an element");
                    case XMLStreamConstants.END_ELEMENT -> {
                        depth--;
                        return text.toString();
                    }
                    case XMLStreamConstants.DTD, XMLStreamConstants.ENTITY_REFERENCE ->
                        throw XmlBodies.malformed("DTDs and entity references are not allowed");
                    default -> {
                        // comments and processing instructions: dropped
                    }
                }
            }
        } catch (XMLStreamException | RuntimeException e) {
            throw refusal(e);
        }
    }

    /** At an element's start: passes over it and everything inside it, still counted against the limits. */
    void skip() throws S3Exception {
        int level = depth;
        while (depth >= level) {
            inside(next());
        }
    }

    /** An event read inside the root element: the document cannot end there. */
    private static int inside(int event) throws S3Exception {
        if (event == XMLStreamConstants.END_DOCUMENT) {
            throw XmlBodies.malformed("the document ends inside an element");
        }
        return event;
    }

    /**
     * After the root element's end: the rest of the document (only comments, processing instructions and
     * whitespace may follow) and the rest of the body to its end, so the byte limit and the payload checks of
     * the stream below (hash, chunk signatures, Content-MD5) have run before the caller acts on what it read.
     */
    void finish() throws S3Exception {
        try {
            while (reader.hasNext()) {
                next();
            }
            body.readToEnd();
            reader.close();
        } catch (XMLStreamException | IOException | RuntimeException e) {
            throw refusal(e);
        }
    }

    /**
     * The next START_ELEMENT, END_ELEMENT or END_DOCUMENT, with the element count and depth applied; other
     * events are dropped.
     */
    private int next() throws S3Exception {
        try {
            while (reader.hasNext()) {
                int event = reader.next();
                switch (event) {
                    case XMLStreamConstants.START_ELEMENT -> {
                        if (++elements > maxElements) {
                            throw XmlBodies.malformed("more than " + maxElements + " elements");
                        }
                        if (++depth > MAX_DEPTH) {
                            throw XmlBodies.malformed("nested too deeply");
                        }
                        return event;
                    }
                    case XMLStreamConstants.END_ELEMENT -> {
                        depth--;
                        return event;
                    }
                    case XMLStreamConstants.DTD, XMLStreamConstants.ENTITY_REFERENCE ->
                        throw XmlBodies.malformed("DTDs and entity references are not allowed");
                    default -> {
                        // character data, comments, processing instructions: dropped
                    }
                }
            }
            return XMLStreamConstants.END_DOCUMENT;
        } catch (XMLStreamException | RuntimeException e) {
            throw refusal(e);
        }
    }

    /**
     * What a failure inside the reader means for the client: the S3 error the body stream raised (the reader
     * wraps it), else MalformedXML. The JDK's StAX reader also throws unchecked exceptions on some broken input
     * (found by fuzzing: a bad DOCTYPE makes it look up a message key its bundle lacks,
     * MissingResourceException); bad input is the client's error, never a 500.
     */
    private S3Exception refusal(Exception e) {
        S3Exception fromBody = body.failure();
        if (fromBody != null) {
            return fromBody;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof S3BodyException s3) {
                return s3.s3();
            }
        }
        if (e instanceof XMLStreamException) {
            return XmlBodies.malformed(e.getMessage());
        }
        if (e instanceof IOException) {
            return new S3Exception(S3ErrorCode.INCOMPLETE_BODY, "Could not read the request body: " + e.getMessage());
        }
        return XmlBodies.malformed("unreadable XML (" + e.getClass().getSimpleName() + ")");
    }
}
