/**
 * RDMA devices seen through libibverbs: one {@link org.objrdma.verbs.VerbsDevice} service per device and
 * port the configuration selects, and {@link org.objrdma.verbs.VerbsRuntime}, which says whether the verbs
 * path is usable here and why not. The verbs transport itself is published as an
 * {@code org.objrdma.api.transport.Transport} service; the FFM bindings stay private.
 *
 * <p>1.1.0 (minor): {@code VerbsDevice} says how its transport makes memory grants ({@code grantMechanism()},
 * {@code maxMw()} and their properties); a provider-type addition, consumers of 1.0 are unaffected.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package org.objrdma.verbs;
