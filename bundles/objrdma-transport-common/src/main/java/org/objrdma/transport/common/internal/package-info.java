/** Implementation of {@link org.objrdma.transport.common}; not exported. */
package org.objrdma.transport.common.internal;
