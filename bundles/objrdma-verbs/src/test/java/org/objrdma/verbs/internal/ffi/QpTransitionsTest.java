package org.objrdma.verbs.internal.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The RC state rules and masks the transport relies on (verbs.md §2: 0x39, 0x129181, 0x12E01). */
class QpTransitionsTest {

    @Test
    void theConnectSequenceUsesTheSpecMasks() {
        assertEquals(0x39, QpTransitions.requiredMask(QpState.RESET, QpState.INIT));
        assertEquals(0x129181, QpTransitions.requiredMask(QpState.INIT, QpState.RTR));
        assertEquals(0x12E01, QpTransitions.requiredMask(QpState.RTR, QpState.RTS));
    }

    @Test
    void errorAndResetAreReachableFromEveryStateWithTheStateAlone() {
        for (QpState from : QpState.values()) {
            if (from == QpState.UNKNOWN) {
                continue;
            }
            assertEquals(IbvConstants.IBV_QP_STATE, QpTransitions.requiredMask(from, QpState.ERR), from.name());
            assertEquals(IbvConstants.IBV_QP_STATE, QpTransitions.requiredMask(from, QpState.RESET), from.name());
        }
    }

    @Test
    void skippingAStepIsRefused() {
        assertFalse(QpTransitions.isAllowed(QpState.RESET, QpState.RTR));
        assertFalse(QpTransitions.isAllowed(QpState.RESET, QpState.RTS));
        assertFalse(QpTransitions.isAllowed(QpState.INIT, QpState.RTS));
        assertFalse(QpTransitions.isAllowed(QpState.ERR, QpState.RTS));
        assertFalse(QpTransitions.isAllowed(QpState.RTS, QpState.RTR));
        assertFalse(QpTransitions.isAllowed(QpState.UNKNOWN, QpState.ERR));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> QpTransitions.requiredMask(QpState.RESET, QpState.RTS));
        assertTrue(e.getMessage().contains("RESET to RTS"), e.getMessage());
    }

    @Test
    void theWayBackFromErrToInitIsThroughReset() {
        assertFalse(QpTransitions.isAllowed(QpState.ERR, QpState.INIT), "no ERR → INIT edge");
        assertFalse(QpTransitions.isAllowed(QpState.RTS, QpState.INIT), "no RTS → INIT edge");
        assertTrue(QpTransitions.isAllowed(QpState.ERR, QpState.RESET));
        assertTrue(QpTransitions.isAllowed(QpState.RESET, QpState.INIT));
        assertEquals(QpTransitions.RESET_TO_INIT, QpTransitions.requiredMask(QpState.RESET, QpState.INIT));
    }

    @Test
    void whoAcceptsWhat() {
        assertTrue(QpTransitions.acceptsSends(QpState.RTS));
        assertTrue(QpTransitions.acceptsSends(QpState.ERR));
        assertFalse(QpTransitions.acceptsSends(QpState.RTR));
        assertFalse(QpTransitions.acceptsSends(QpState.INIT));
        assertTrue(QpTransitions.acceptsReceives(QpState.INIT));
        assertFalse(QpTransitions.acceptsReceives(QpState.RESET));
    }
}
