package org.objrdma.shell.internal;

import java.util.Map;

/** {@code org.objrdma:type=gateway,name=s3}: the figures {@code rdma:gateway} prints, read-only. */
public interface GatewayMXBean {
    /** The gateway's DS component name, {@code org.objrdma.s3}. */
    String getComponent();

    /** Its SCR state ({@code ACTIVE}, {@code UNSATISFIED_REFERENCE}, ...) or why there is none. */
    String getState();

    /** The {@code osgi.http.endpoint} of every HTTP whiteboard runtime, comma-separated; {@code -} for none. */
    String getEndpoints();

    /** {@code objrdma.s3.requests}. */
    long getRequests();

    /** {@code objrdma.s3.errors}. */
    long getErrors();

    /** S3 error code ({@code AccessDenied}, {@code NoSuchKey}, ...) → error answers with it. */
    Map<String, Long> getErrorsByCode();
}
