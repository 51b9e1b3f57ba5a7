/**
 * Staging-buffer pool contract: registered off-heap buffers lent out as consume-once leases.
 *
 * <p>1.1.0: borrow on a named transport; registrations per live transport; per-principal class cap and
 * borrowing from the next larger class.
 *
 * <p>1.2.0: {@link org.objrdma.api.staging.StagingPool#borrowDedicated} (one unpooled buffer of an exact size).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.2.0")
package org.objrdma.api.staging;
