package org.objrdma.verbs.internal.transport;

import org.objrdma.transport.tck.TransportContractTest;
import org.objrdma.verbs.internal.ComponentFixture;

/**
 * The shared transport contract, run against the verbs transport on the software device. Requester and
 * responder are two transports on two device contexts (two "hosts" with their own protection domains), as
 * published by two activations of the component. The software device moves the responder's queue pair to ERR
 * on a remote access violation, as a NIC does, so every contract check runs here (none is skipped).
 */
class VerbsTransportContractTest extends TransportContractTest {
    private VerbsTransport requester;

    @Override
    protected TransportPair openTransports() {
        ComponentFixture a = ComponentFixture.software();
        ComponentFixture b = ComponentFixture.software();
        requester = (VerbsTransport) a.transport();
        return new TransportPair(requester, b.transport(), () -> {
            a.close();
            b.close();
        });
    }

    /** Verbs endpoints carry no access key: the peer is named by QPN and address, not authenticated. */
    @Override
    protected boolean supportsWrongKeyAtConnect() {
        return false;
    }

    /**
     * Queue pairs retry RNR forever (rnr_retry 7), so on a NIC a SEND without a receive waits rather than
     * fails; the software device reports RNR_RETRY_EXC_ERR at once, and that is what is tested here.
     */
    @Override
    protected boolean supportsReceiverNotReadyFailure() {
        return requester.device().software();
    }
}
