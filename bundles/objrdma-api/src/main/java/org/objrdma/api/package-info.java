/**
 * Values shared by every objrdma contract: the principal a request acts for.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.objrdma.api;
