package org.objrdma.shell.internal;

import java.util.LinkedHashMap;
import java.util.Map;

import javax.management.DynamicMBean;
import javax.management.NotCompliantMBeanException;
import javax.management.StandardMBean;

import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.KeyedCounter;
import org.objrdma.api.telemetry.Latency;
import org.objrdma.api.telemetry.LatencySnapshot;
import org.objrdma.api.telemetry.TelemetryView;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/** Publishes {@link TelemetryMXBean} through the JMX whiteboard. */
@Component(service = DynamicMBean.class, property = "jmx.objectname=org.objrdma:type=telemetry,name=counters")
public final class TelemetryJmx extends StandardMBean implements TelemetryMXBean {

    // Dynamic and greedy, so this MBean (one registration in the MBean server) follows the live service:
    // a static reference would re-create the component, and the JMX whiteboard could keep the old object
    // registered under the name while the new one is refused as a duplicate (see README, MBeans).
    @Reference(policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    private volatile TelemetryView telemetry;

    public TelemetryJmx() throws NotCompliantMBeanException {
        super(TelemetryMXBean.class, true);
    }

    @Override
    public Map<String, Long> getCounters() {
        Map<String, Long> out = new LinkedHashMap<>();
        telemetry.snapshot().forEach((counter, value) -> out.put(counter.id(), value));
        return out;
    }

    @Override
    public Map<String, Map<String, Long>> getKeyedCounters() {
        Map<String, Map<String, Long>> out = new LinkedHashMap<>();
        TelemetryView view = telemetry;
        for (KeyedCounter counter : KeyedCounter.values()) {
            out.put(counter.id(), view.keyed(counter));
        }
        return out;
    }

    @Override
    public Map<String, Map<String, Long>> getLatencies() {
        Map<String, Map<String, Long>> out = new LinkedHashMap<>();
        TelemetryView view = telemetry;
        for (Latency latency : Latency.values()) {
            LatencySnapshot s = view.latency(latency);
            Map<String, Long> fields = new LinkedHashMap<>();
            fields.put("count", s.count());
            fields.put("p50Nanos", s.p50Nanos());
            fields.put("p99Nanos", s.p99Nanos());
            fields.put("maxNanos", s.maxNanos());
            out.put(latency.id(), fields);
        }
        return out;
    }

    @Override
    public long value(String id) {
        Counter counter = Counter.fromId(id);
        if (counter == null) {
            throw new IllegalArgumentException("id: no counter '" + id + "'");
        }
        return telemetry.value(counter);
    }
}
