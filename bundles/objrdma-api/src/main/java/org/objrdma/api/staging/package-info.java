/**
 * Staging-buffer pool contract: registered off-heap buffers lent out as consume-once leases.
 *
 * <p>1.1.0: borrow on a named transport; registrations per live transport; per-principal class cap and
 * borrowing from the next larger class.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package org.objrdma.api.staging;
