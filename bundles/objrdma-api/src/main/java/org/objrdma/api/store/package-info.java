/**
 * Object-store SPI: what a host object store implements so objrdma can authorize requests and move object bytes through staging memory.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.objrdma.api.store;
