/**
 * Session manager contract: the hipobj-rc-v2 RC session core of {@code rc_server_abi.h} in Java form.
 *
 * <p>2.0.0: a failed READY data phase carries its outcome ({@link org.objrdma.api.session.SessionResult}
 * may hold a value on failure), {@link org.objrdma.api.session.RcStatus#SHUTDOWN} is new, a PREPARE without
 * a client endpoint is refused unless the manager runs control-plane only.
 *
 * <p>2.1.0: {@link org.objrdma.api.session.SessionManager#foreignOwner} (session affinity across gateways).
 *
 * <p>2.2.0: {@link org.objrdma.api.session.StagingSource} and the READY overload taking one (GET sessions
 * larger than one staging buffer, moved in chunks).
 *
 * <p>2.3.0: {@link org.objrdma.api.session.SessionUseCases} (one call per hipobj-rc-v2 route: PREPARE of a GET with
 * its staging source, PREPARE of a PUT, READY with its finalizer), which {@link org.objrdma.api.session.SessionManager}
 * now extends, with {@link org.objrdma.api.session.PrepareResult}, {@link org.objrdma.api.session.ReadyResult} and
 * {@link org.objrdma.api.session.ObjectAccess}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.3.0")
package org.objrdma.api.session;
