/**
 * Staging-buffer pool contract: registered off-heap buffers lent out as consume-once leases.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.objrdma.api.staging;
