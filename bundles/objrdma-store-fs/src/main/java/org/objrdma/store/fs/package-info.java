/**
 * Plain-Java entry to the embedded stores (filesystem and in-memory), for tests and tools outside OSGi;
 * inside Karaf the filesystem store is the {@code org.objrdma.store.fs} component.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.objrdma.store.fs;
