package org.objrdma.s3.xml;

import java.io.FilterReader;
import java.io.IOException;
import java.io.Reader;
import org.objrdma.s3.S3BodyException;
import org.objrdma.s3.S3ErrorCode;

/**
 * Bounds what the JDK's StAX reader would otherwise buffer whole. The reader hands out character data in
 * chunks of at most 16 KiB, but a tag (with its attribute values), a comment, a CDATA section and a processing
 * instruction each arrive as one buffer as long as the construct, so a body that is one huge comment would
 * cost several times its size in heap. This filter follows the markup as it passes (a small state machine,
 * no buffering) and refuses, as MalformedXML, any such construct longer than {@code maxMarkupChars}, and any
 * {@code <!} declaration other than a comment or CDATA section (a DOCTYPE: S3 bodies have none, and its
 * internal subset would be buffered whole as well).
 */
final class MarkupBoundingReader extends FilterReader {

    private enum State { TEXT, OPEN, BANG, TAG, COMMENT, CDATA, PI }

    private static final String CDATA_OPEN = "[CDATA[";

    private final int maxMarkupChars;
    private State state = State.TEXT;
    /** Characters of the current construct so far (from its {@code <}). */
    private int length;
    /** The characters after {@code <!} while it is still undecided between comment and CDATA. */
    private final StringBuilder bang = new StringBuilder(8);
    /** Inside a tag: the quote of the attribute value being read, or 0. */
    private char quote;
    /** The two characters before the current one, for the closing {@code -->}, {@code ]]>}, {@code ?>}. */
    private char prev1;
    private char prev2;

    MarkupBoundingReader(Reader in, int maxMarkupChars) {
        super(in);
        this.maxMarkupChars = maxMarkupChars;
    }

    @Override
    public int read() throws IOException {
        char[] one = new char[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0];
    }

    @Override
    public int read(char[] cbuf, int off, int len) throws IOException {
        int n = in.read(cbuf, off, len);
        for (int i = 0; i < n; i++) {
            follow(cbuf[off + i]);
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        char[] sink = new char[(int) Math.min(8192, Math.max(0, n))];
        return Math.max(0, read(sink, 0, sink.length));
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    private void follow(char c) throws S3BodyException {
        switch (state) {
            case TEXT -> {
                if (c == '<') {
                    state = State.OPEN;
                    length = 1;
                }
            }
            case OPEN -> {
                grow();
                if (c == '!') {
                    state = State.BANG;
                    bang.setLength(0);
                } else if (c == '?') {
                    enter(State.PI);
                    return;
                } else {
                    state = State.TAG;
                    quote = 0;
                    tag(c);
                }
            }
            case BANG -> {
                grow();
                bang.append(c);
                if (bang.length() == 2 && bang.charAt(0) == '-' && c == '-') {
                    enter(State.COMMENT);
                    return;
                } else if (bang.length() == CDATA_OPEN.length() && CDATA_OPEN.contentEquals(bang)) {
                    enter(State.CDATA);
                    return;
                } else if (!(bang.length() == 1 && c == '-') && !CDATA_OPEN.startsWith(bang.toString())) {
                    throw new S3BodyException(S3ErrorCode.MALFORMED_XML, "The XML you provided was not well-formed "
                            + "or did not validate against our published schema: DTDs and declarations are not allowed");
                }
            }
            case TAG -> {
                grow();
                tag(c);
            }
            case COMMENT -> {
                grow();
                if (c == '>' && prev1 == '-' && prev2 == '-') {
                    state = State.TEXT;
                }
            }
            case CDATA -> {
                grow();
                if (c == '>' && prev1 == ']' && prev2 == ']') {
                    state = State.TEXT;
                }
            }
            case PI -> {
                grow();
                if (c == '>' && prev1 == '?') {
                    state = State.TEXT;
                }
            }
        }
        prev2 = prev1;
        prev1 = c;
    }

    /** A comment, CDATA section or PI starts: its closing sequence must not borrow the opening's characters. */
    private void enter(State body) {
        state = body;
        prev1 = 0;
        prev2 = 0;
    }

    private void tag(char c) {
        if (quote != 0) {
            if (c == quote) {
                quote = 0;
            }
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '>') {
            state = State.TEXT;
        }
    }

    private void grow() throws S3BodyException {
        if (++length > maxMarkupChars) {
            throw new S3BodyException(S3ErrorCode.MALFORMED_XML, "The XML you provided was not well-formed or did not "
                    + "validate against our published schema: a tag, comment, CDATA section or processing instruction "
                    + "is longer than " + maxMarkupChars + " characters");
        }
    }
}
