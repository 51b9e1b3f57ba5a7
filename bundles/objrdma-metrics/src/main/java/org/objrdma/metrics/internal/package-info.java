/** The Prometheus endpoint's implementation: private to the bundle. */
package org.objrdma.metrics.internal;
