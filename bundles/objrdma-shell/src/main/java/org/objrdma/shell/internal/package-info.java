/**
 * The rdma:* Karaf shell commands: read-only views over objrdma's services plus the few edits an operator
 * makes through Config Admin (transport pins, store credentials). Private: nothing here is API.
 */
package org.objrdma.shell.internal;
