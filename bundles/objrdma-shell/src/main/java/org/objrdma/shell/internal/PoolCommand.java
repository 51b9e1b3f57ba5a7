package org.objrdma.shell.internal;

import org.apache.karaf.shell.api.action.Action;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.support.table.ShellTable;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.staging.StagingStats;

/** The staging pool's counters and size classes, from {@link StagingPool#stats()}. */
@Service
@Command(scope = "rdma", name = "pool", description = "Shows the staging pool: totals and size classes (lent, free)")
public class PoolCommand implements Action {

    @Option(name = "--no-format", description = "Disable table rendered output")
    boolean noFormat;

    @Reference
    StagingPool pool;

    @Override
    public Object execute() {
        StagingStats stats = pool.stats();
        ShellTable totals = new ShellTable();
        totals.column("Lent");
        totals.column("Free");
        totals.column("Bytes lent");
        totals.column("Bytes held");
        totals.column("Max buffer");
        totals.column("Borrows");
        totals.column("Waits");
        totals.column("Timeouts");
        totals.column("Failures");
        totals.column("Double returns");
        totals.column("Overdue");
        totals.addRow().addContent(stats.borrowed(), stats.idle(), stats.bytesBorrowed(), stats.bytesAllocated(),
                pool.maxBufferSize(), stats.borrows(), stats.waits(), stats.timeouts(), stats.failures(),
                stats.doubleReturns(), stats.overdueLeases());
        totals.print(System.out, !noFormat);
        System.out.println();
        ShellTable classes = new ShellTable();
        classes.column("Class bytes");
        classes.column("Lent");
        classes.column("Free");
        for (StagingStats.SizeClass c : stats.classes()) {
            classes.addRow().addContent(c.bufferSize(), c.borrowed(), c.idle());
        }
        classes.print(System.out, !noFormat);
        return null;
    }
}
