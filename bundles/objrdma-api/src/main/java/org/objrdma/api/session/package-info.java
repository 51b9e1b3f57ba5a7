/**
 * Session manager contract: the hipobj-rc-v2 RC session core of {@code rc_server_abi.h} in Java form.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.objrdma.api.session;
