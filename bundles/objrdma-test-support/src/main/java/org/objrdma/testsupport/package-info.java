/**
 * Test doubles the suites share (module README). Exported only so that an integration test can install this jar
 * into the container it tests and register its fakes there; no feature ships it.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.objrdma.testsupport;
