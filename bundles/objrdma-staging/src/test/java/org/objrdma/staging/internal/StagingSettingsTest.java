package org.objrdma.staging.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class StagingSettingsTest {

    @Test
    void annotationDefaultsAreTheDocumentedDefaultsAndValid() {
        StagingSettings fromAnnotation = StagingSettings.from(TestSupport.config(Map.of()));
        assertEquals(StagingSettings.defaults(), fromAnnotation);
        assertEquals(4096, fromAnnotation.minBufferSize());
        assertEquals(64L << 20, fromAnnotation.maxBufferSize());
        assertEquals(15, fromAnnotation.classCount()); // 2^12 .. 2^26
    }

    @Test
    void largestAllowedConfigurationIsAccepted() {
        StagingSettings s = StagingSettings.from(TestSupport.config(Map.of(
                "max_buffer_size", 1L << 30, "max_total_bytes", 4L << 30, "max_bytes_per_principal", 1L << 30,
                "borrow_wait", 0L, "shutdown_timeout", 0L)));
        assertEquals(19, s.classCount());
        assertEquals(Duration.ZERO, s.borrowWait());
    }

    static Stream<Arguments> badConfigurations() {
        return Stream.of(
                Arguments.of("min_buffer_size", 0L, "min.buffer.size"),
                Arguments.of("min_buffer_size", 2048L, "min.buffer.size"),
                Arguments.of("min_buffer_size", 6000L, "min.buffer.size"),
                Arguments.of("min_buffer_size", -4096L, "min.buffer.size"),
                Arguments.of("max_buffer_size", 0L, "max.buffer.size"),
                Arguments.of("max_buffer_size", 3_000_000L, "max.buffer.size"),
                Arguments.of("max_buffer_size", 2L << 30, "max.buffer.size"),
                Arguments.of("max_buffer_size", 2048L, "max.buffer.size"),
                Arguments.of("max_total_bytes", 0L, "max.total.bytes"),
                Arguments.of("max_total_bytes", -1L, "max.total.bytes"),
                Arguments.of("max_total_bytes", (64L << 20) - 1, "max.total.bytes"),
                Arguments.of("max_bytes_per_principal", 0L, "max.bytes.per.principal"),
                Arguments.of("max_bytes_per_principal", 1L << 20, "max.bytes.per.principal"),
                Arguments.of("max_bytes_per_principal", 2L << 30, "max.bytes.per.principal"),
                Arguments.of("max_buffers_per_class", 0, "max.buffers.per.class"),
                Arguments.of("max_buffers_per_class", -5, "max.buffers.per.class"),
                Arguments.of("max_buffers_per_principal_per_class", 0, "max.buffers.per.principal.per.class"),
                Arguments.of("max_buffers_per_principal_per_class", 257, "max.buffers.per.principal.per.class"),
                // lowering max.buffers.per.class alone leaves the default share above it: refused, named
                Arguments.of("max_buffers_per_class", 32, "max.buffers.per.principal.per.class"),
                Arguments.of("idle_per_class", 0, "idle.per.class"),
                Arguments.of("idle_per_class", 257, "idle.per.class"),
                Arguments.of("idle_timeout", 0L, "idle.timeout"),
                Arguments.of("idle_timeout", -1L, "idle.timeout"),
                Arguments.of("borrow_wait", -1L, "borrow.wait"),
                Arguments.of("lease_deadline", 0L, "lease.deadline"),
                Arguments.of("lease_deadline", -10L, "lease.deadline"),
                Arguments.of("lease_check_period", 0L, "lease.check.period"),
                Arguments.of("shutdown_timeout", -1L, "shutdown.timeout"));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("badConfigurations")
    void zeroNegativeOrInconsistentValueIsRefusedNamingTheProperty(String attribute, Object value, String property) {
        StagingPoolConfig c = TestSupport.config(Map.of(attribute, value));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StagingSettings.from(c));
        assertTrue(e.getMessage().contains(property + " = "), "message names " + property + ": " + e.getMessage());
        assertTrue(e.getMessage().startsWith("org.objrdma.staging: "), e.getMessage());
    }
}
