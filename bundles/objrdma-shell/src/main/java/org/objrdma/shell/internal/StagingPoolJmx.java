package org.objrdma.shell.internal;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

import javax.management.DynamicMBean;
import javax.management.NotCompliantMBeanException;
import javax.management.StandardMBean;

import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.staging.StagingStats;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/** Publishes {@link StagingPoolMXBean} through the JMX whiteboard ({@code jmx.objectname}). */
@Component(service = DynamicMBean.class, property = "jmx.objectname=org.objrdma:type=pool,name=staging")
public final class StagingPoolJmx extends StandardMBean implements StagingPoolMXBean {

    // Dynamic and greedy, so this MBean (one registration in the MBean server) follows the live service:
    // a static reference would re-create the component, and the JMX whiteboard could keep the old object
    // registered under the name while the new one is refused as a duplicate (see README, MBeans).
    @Reference(policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    private volatile StagingPool pool;

    public StagingPoolJmx() throws NotCompliantMBeanException {
        super(StagingPoolMXBean.class, true);
    }

    @Override public long getLent() { return pool.stats().borrowed(); }
    @Override public long getFree() { return pool.stats().idle(); }
    @Override public long getBytesLent() { return pool.stats().bytesBorrowed(); }
    @Override public long getBytesHeld() { return pool.stats().bytesAllocated(); }
    @Override public long getMaxBufferSize() { return pool.maxBufferSize(); }
    @Override public long getBorrows() { return pool.stats().borrows(); }
    @Override public long getWaits() { return pool.stats().waits(); }
    @Override public long getTimeouts() { return pool.stats().timeouts(); }
    @Override public long getFailures() { return pool.stats().failures(); }
    @Override public long getDoubleReturns() { return pool.stats().doubleReturns(); }
    @Override public long getOverdueLeases() { return pool.stats().overdueLeases(); }

    @Override
    public Map<Long, Long> getClassesLent() {
        return byClass(StagingStats.SizeClass::borrowed);
    }

    @Override
    public Map<Long, Long> getClassesFree() {
        return byClass(StagingStats.SizeClass::idle);
    }

    private Map<Long, Long> byClass(ToLongFunction<StagingStats.SizeClass> value) {
        Map<Long, Long> out = new TreeMap<>();
        for (StagingStats.SizeClass c : pool.stats().classes()) {
            out.put(c.bufferSize(), value.applyAsLong(c));
        }
        return out;
    }
}
