package dev.goodput.bench;

import java.lang.reflect.InvocationTargetException;
import java.util.Arrays;

/**
 * How {@link ChildJvm} starts every child: runs the child's main class, and ends the child once the
 * JVM that started it has gone. A benchmark stopped with Ctrl-C, {@code kill} or {@code kill -9}
 * never reaches {@link ChildJvm#close}; without this its streams-app children (which, unlike the
 * broker, do not watch their input) kept retrying a broker that was gone, about a tenth of a core
 * each, and slowed every benchmark run after it on the same machine.
 */
public final class OrphanGuard {

    /** The exit status of a child whose parent has gone. */
    static final int ORPHANED = 3;

    private OrphanGuard() {
    }

    /** {@code args}: the main class, then its arguments. */
    public static void main(String[] args) throws Throwable {
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> {
            System.err.println("the parent JVM " + parent.pid() + " has gone: stopping");
            System.exit(ORPHANED);
        }));
        try {
            Class.forName(args[0]).getMethod("main", String[].class)
                    .invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
