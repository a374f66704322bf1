package io.aryl.labels;

import io.aryl.core.model.Checks;
import io.aryl.labels.ControllerStatus.ErrorNote;
import io.aryl.labels.EpochZnode.Epoch;
import io.aryl.labels.Leadership.NotActingException;
import io.aryl.labels.SchedulerLink.StaleTargetException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loan controller: every {@code intervalMs} the leader among any number of instances reads
 * inference demand and the scheduler's status, decides how many inference servers may be on loan
 * now and by when those above must be back ({@link LoanDecider}), and sends that target with its
 * epoch to the scheduler on the active ResourceManager. The scheduler is the one writer of which
 * node is where: it stores the target before it answers, lends idle inference nodes up to it and
 * reclaims, least cost first, what is above it. The controller keeps no record of nodes and
 * relabels nothing.
 *
 * <p>Leadership is a Curator {@link LeaderLatch} ({@link Leadership}). The instance stops acting
 * the moment its ZooKeeper connection is SUSPENDED or LOST, and claims a new epoch ({@link
 * EpochZnode}) each time it (re)gains leadership. The scheduler refuses a target of an older epoch
 * than the one in force (409): a deposed leader that still runs cannot undo its successor's target,
 * and on that refusal it stands down.
 *
 * <p>The parts, one job each: {@code Leadership} (election, epoch), {@code DecisionRound} (one
 * decision, and the target sent), {@code ControllerStatus} (the status). This class runs them on a
 * schedule and answers for them.
 *
 * <p>Lifecycle: {@link #start()} once, {@link #close()} once. The Curator client is the caller's.
 */
public final class LoanController implements AutoCloseable, ConnectionStateListener {
  private static final Logger LOG = LoggerFactory.getLogger(LoanController.class);

  /** Where this instance stands. */
  public enum Role {
    NEW,
    STANDBY,
    LEADER,
    SUSPENDED,
    CLOSED
  }

  /**
   * One instance's settings.
   *
   * @param instanceId this instance's name in the election and in its targets
   * @param zkRoot ZooKeeper path of the latch and the epoch
   * @param intervalMs milliseconds between decisions
   * @param decider the decision's settings
   * @param lead what the decision plans for beyond the rate now: the time to serve and the trend
   */
  public record Config(
      String instanceId, String zkRoot, long intervalMs, LoanDecider.Settings decider, Lead lead) {
    /** Planning for the rate now only, with no measured lead. */
    public Config(String instanceId, String zkRoot, long intervalMs, LoanDecider.Settings decider) {
      this(instanceId, zkRoot, intervalMs, decider, Lead.RATE_NOW);
    }

    public Config {
      Checks.notBlank("instanceId", instanceId);
      Checks.notBlank("zkRoot", zkRoot);
      if (intervalMs <= 0) {
        throw new IllegalArgumentException("intervalMs must be > 0, was " + intervalMs);
      }
      Checks.notNull("decider", decider);
      Checks.notNull("lead", lead);
    }
  }

  /**
   * How far ahead the decision plans ({@link LeadPlanner}).
   *
   * @param timeToServeSeedMs the time to serve assumed until one was measured, milliseconds
   * @param timeToServeWindow how many of the latest measures the figure is the p90 of
   * @param trendMs how far back the rate's trend reads, milliseconds; 0: the rate now only
   */
  public record Lead(long timeToServeSeedMs, int timeToServeWindow, long trendMs) {
    /** No forecast: the rate now is planned for; the time to serve is still measured. */
    public static final Lead RATE_NOW = new Lead(0, 20, 0);

    public Lead {
      if (timeToServeSeedMs < 0) {
        throw new IllegalArgumentException(
            "timeToServeSeedMs must be >= 0, was " + timeToServeSeedMs);
      }
      Checks.positive("timeToServeWindow", timeToServeWindow);
      if (trendMs < 0) {
        throw new IllegalArgumentException("trendMs must be >= 0, was " + trendMs);
      }
    }
  }

  private final Config config;
  private final LongSupplier clock;
  private final Leadership leadership;
  private final DecisionRound round;
  private final ScheduledExecutorService executor;
  private final LoanCounters counters = new LoanCounters();
  private final AtomicLong ticks = new AtomicLong();

  private volatile long lastTickMs;
  private volatile ErrorNote lastError;

  public LoanController(
      CuratorFramework client,
      Config config,
      List<DemandSource> demand,
      SchedulerLink scheduler,
      LongSupplier clock) {
    Checks.notNull("client", client);
    this.config = Checks.notNull("config", config);
    List<DemandSource> sources = List.copyOf(Checks.notNull("demand", demand));
    if (sources.isEmpty()) {
      throw new IllegalArgumentException("demand must name at least one source, was empty");
    }
    Checks.notNull("scheduler", scheduler);
    this.clock = Checks.notNull("clock", clock);
    this.leadership =
        new Leadership(
            client,
            new EpochZnode(client, config.zkRoot()),
            config.instanceId(),
            config.zkRoot() + "/leader");
    this.round =
        new DecisionRound(
            config.instanceId(),
            sources,
            scheduler,
            leadership,
            new LoanDecider(config.decider()),
            new LeadPlanner(
                config.lead().timeToServeSeedMs(),
                config.lead().timeToServeWindow(),
                config.lead().trendMs()),
            clock,
            counters,
            this::recordError);
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "loan-controller-" + config.instanceId());
              t.setDaemon(true);
              return t;
            });
  }

  // tick() handles its own failures, and close() ends the schedule by shutting the executor down:
  // the schedule's future has nothing to tell.
  @SuppressWarnings("FutureReturnValueIgnored")
  public void start() throws Exception {
    leadership.start();
    executor.scheduleWithFixedDelay(this::tick, 0, config.intervalMs(), TimeUnit.MILLISECONDS);
    LOG.info("loan controller {} started under {}", config.instanceId(), config.zkRoot());
  }

  /**
   * Stops deciding and leaves the election. Interrupted while waiting for a decision under way, it
   * still leaves the election (so that a standby can take over at once) and keeps the thread's
   * interrupt status.
   */
  @Override
  public void close() {
    if (!leadership.stop()) {
      return;
    }
    executor.shutdownNow();
    try {
      executor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    leadership.leave();
    LOG.info("loan controller {} closed", config.instanceId());
  }

  /**
   * Passes a connection event on to the election's state; {@link #start()} listens to the client
   * already.
   */
  @Override
  public void stateChanged(CuratorFramework c, ConnectionState state) {
    leadership.stateChanged(c, state);
  }

  /**
   * True while this instance is the leader with a claimed epoch and a live ZooKeeper connection.
   */
  public boolean isActing() {
    return leadership.isActing();
  }

  public Role role() {
    return leadership.role();
  }

  public String instanceId() {
    return config.instanceId();
  }

  /** The epoch this instance holds, -1 when it is not acting. */
  public long epoch() {
    Epoch e = leadership.held();
    return e == null ? -1 : e.version();
  }

  /** Targets the scheduler accepted from this instance, since start. */
  public long targetsAccepted() {
    return counters.targetsAccepted.get();
  }

  /** Targets the scheduler refused as stale (409), since start. */
  public long targetsStale() {
    return counters.targetsStale.get();
  }

  /** Times this instance stood down on a stale target, since start. */
  public long standDowns() {
    return counters.standDowns.get();
  }

  public long ticks() {
    return ticks.get();
  }

  /**
   * The target of the last decision, or -1 before one had a target (or when the scheduler could not
   * be reached).
   */
  public int lastTarget() {
    ControllerStatus.Taken t = round.lastDecision();
    return t == null || t.decision().target() == null ? -1 : t.decision().target().maxOnLoan();
  }

  /** Everything the status endpoint shows. */
  public Map<String, Object> status() {
    Leadership.Standing s = leadership.standing();
    return new ControllerStatus(
            config.instanceId(),
            s.role(),
            isActing(),
            s.epoch() == null ? -1 : s.epoch().version(),
            s.connected(),
            lastTickMs,
            ticks.get(),
            round.lastDemand(),
            round.schedulerSeen(),
            round.lastDecision(),
            round.lastSent(),
            counters.snapshot(),
            lastError)
        .toMap();
  }

  // ---------------------------------------------------------------------------------------------------------------

  private void tick() {
    if (leadership.role() == Role.CLOSED) {
      return;
    }
    ticks.incrementAndGet();
    lastTickMs = clock.getAsLong();
    Epoch e = null;
    try {
      if (!leadership.leads()) {
        return;
      }
      e = leadership.held();
      if (e == null) {
        e = leadership.claim();
        if (e == null) {
          return;
        }
        round.forget();
        counters.epochsClaimed.incrementAndGet();
      }
      round.run(e);
    } catch (StaleTargetException ex) {
      recordError("target of epoch " + e.version() + " refused: " + ex.getMessage());
      counters.standDowns.incrementAndGet();
      try {
        leadership.resign(e, ex.getMessage());
      } catch (Exception resign) {
        LOG.warn(
            "loan controller {}: rejoining the election failed: {}",
            config.instanceId(),
            resign.toString());
      }
    } catch (NotActingException ex) {
      recordError(ex.getMessage());
      LOG.warn("loan controller {}: {}", config.instanceId(), ex.getMessage());
    } catch (Exception ex) {
      recordError(ex.toString());
      LOG.warn("loan controller {}: decision failed: {}", config.instanceId(), ex.toString());
    }
  }

  private void recordError(String message) {
    lastError = new ErrorNote(message, clock.getAsLong());
  }
}
