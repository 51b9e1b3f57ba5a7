package org.objrdma.shell.internal;

import java.util.Map;

import javax.management.DynamicMBean;
import javax.management.NotCompliantMBeanException;
import javax.management.StandardMBean;

import org.objrdma.api.telemetry.TelemetryView;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.component.runtime.ServiceComponentRuntime;

/**
 * Publishes {@link GatewayMXBean} through the JMX whiteboard. It needs no gateway: with the S3 bundle
 * absent or stopped it reports that state, as {@code rdma:gateway} does.
 */
@Component(service = DynamicMBean.class, property = "jmx.objectname=org.objrdma:type=gateway,name=s3")
public final class GatewayJmx extends StandardMBean implements GatewayMXBean {

    private final BundleContext context;

    @Reference
    private ServiceComponentRuntime scr;

    // dynamic and greedy for the same reason as the other MBeans' references (see README, MBeans)
    @Reference(policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    private volatile TelemetryView telemetry;

    @Activate
    public GatewayJmx(BundleContext context) throws NotCompliantMBeanException {
        super(GatewayMXBean.class, true);
        this.context = context;
    }

    private GatewayStatus status() {
        return GatewayStatus.read(context, scr, telemetry);
    }

    @Override public String getComponent() { return GatewayStatus.COMPONENT; }
    @Override public String getState() { return status().state(); }
    @Override public String getEndpoints() { return status().endpoints(); }
    @Override public long getRequests() { return status().requests(); }
    @Override public long getErrors() { return status().errors(); }
    @Override public Map<String, Long> getErrorsByCode() { return status().errorsByCode(); }
}
