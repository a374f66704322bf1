package io.aryl.yarn;

import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import org.apache.hadoop.service.launcher.LauncherExitCodes;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a wrong Aryl set-up stops the ResourceManager's start: in the ResourceManager daemon, one
 * ERROR line and the process ends; anywhere else (a MiniYARNCluster, a MockRM, a program that
 * embeds a ResourceManager), an exception with the same message, for the caller to handle.
 *
 * <p>Why not an exception in the daemon too: thrown from the scheduler's initialisation, it is
 * logged with its stack trace by the CapacityScheduler, RMActiveServices and ResourceManager
 * services as each fails, and again by {@code ResourceManager.main} ("Error starting
 * ResourceManager") and {@code ExitUtil}: four copies and some 60 trace lines around the one line
 * that matters, measured on Hadoop 3.5.0 daemons.
 *
 * <p>Why the process is halted, not exited: the scheduler is initialised inside {@code
 * ResourceManager.init}, which holds the service's state lock; {@code System.exit} (and so {@code
 * ExitUtil.terminate}) runs the ResourceManager's shutdown hook, whose {@code stop()} waits for
 * that lock: the process hung 30 s per hook and logged two {@code TimeoutException} traces before
 * {@code ShutdownHookManager} gave up (measured: 91 s to exit). {@code ExitUtil.halt} logs a stack
 * trace of its own. Nothing has started at initialisation (no RPC server, no state store open, no
 * application recovered), so there is nothing for a hook to stop; log lines are written through
 * before the halt.
 */
final class StartRefusal {
  private static final Logger LOG = LoggerFactory.getLogger(ArylScheduler.class);

  /** The exit status: Hadoop's launcher code for a bad configuration. */
  static final int EXIT_STATUS = LauncherExitCodes.EXIT_BAD_CONFIGURATION;

  private final BooleanSupplier inDaemonStart;
  private final IntConsumer halt;
  private final Logger log;

  StartRefusal(BooleanSupplier inDaemonStart, IntConsumer halt, Logger log) {
    this.inDaemonStart = inDaemonStart;
    this.halt = halt;
    this.log = log;
  }

  /** The refusal of this JVM: halts it when it is a ResourceManager daemon starting. */
  static StartRefusal ofThisJvm() {
    return new StartRefusal(
        StartRefusal::calledFromResourceManagerMain,
        status -> {
          System.out.flush();
          System.err.flush();
          Runtime.getRuntime().halt(status);
        },
        LOG);
  }

  /**
   * Refuses the start for {@code refusal}'s message: in the daemon's start, logs it as one ERROR
   * line and ends the process with {@link #EXIT_STATUS}; elsewhere returns {@code refusal}, for the
   * caller to throw.
   */
  RuntimeException refuse(YarnRuntimeException refusal) {
    if (inDaemonStart.getAsBoolean()) {
      log.error(
          "{} (the ResourceManager stops, exit status {})", refusal.getMessage(), EXIT_STATUS);
      halt.accept(EXIT_STATUS);
    }
    return refusal;
  }

  /**
   * Whether this thread runs {@code ResourceManager.main}: the daemon starting, as Hadoop's {@code
   * yarn resourcemanager} runs it (the outermost frame of the thread that initialises and starts
   * the services).
   */
  static boolean calledFromResourceManagerMain() {
    return StackWalker.getInstance()
        .walk(frames -> frames.reduce((inner, outer) -> outer))
        .map(
            f ->
                f.getClassName().equals(ResourceManager.class.getName())
                    && f.getMethodName().equals("main"))
        .orElse(false);
  }
}
