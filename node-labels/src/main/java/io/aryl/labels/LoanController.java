package io.aryl.labels;

import io.aryl.core.model.Checks;
import io.aryl.labels.ControllerStatus.ErrorNote;
import io.aryl.labels.Leadership.NotActingException;
import io.aryl.labels.LoanLedger.Epoch;
import io.aryl.labels.LoanLedger.FencedException;
import io.aryl.labels.Pools.SchedulerView;
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
 * The loan controller: every {@code intervalMs} the leader among any number of instances reads inference demand,
 * brings the loan ledger in line with the nodes' labels, asks {@link LoanDecider} what to do, and does it — loans an
 * idle inference node by relabelling it {@code training}, or asks the scheduler for a count of loaned nodes back with
 * a deadline.
 *
 * <p>Leadership is a Curator {@link LeaderLatch}. The instance stops acting the moment its ZooKeeper connection is
 * SUSPENDED or LOST, and claims a new {@linkplain LoanLedger#claimEpoch epoch} each time it (re)gains leadership:
 * every ledger write is fenced by that epoch, and every loan is written to the ledger before the node is relabelled,
 * so without ZooKeeper nothing new is loaned, and a deposed leader cannot overwrite its successor. A new leader
 * resumes what its predecessor left: nodes being reclaimed stay RECLAIMING until the scheduler relabels them, and a
 * reclaim request whose answer was never recorded is found among the scheduler's reclaims and adopted.
 *
 * <p>The scheduler may restart or fail over to another ResourceManager, and a new scheduler knows little at first.
 * While it is unreachable or {@linkplain SchedulerView#recovering recovering}, nothing is loaned or reclaimed; a
 * RECLAIMING node goes back to LOANED only once a reachable, settled scheduler has not listed its reclaim for
 * {@code reclaimUnknownGraceMs} without a break, and never before the reclaim's deadline. A reclaim the scheduler
 * refuses is asked for again after a {@link ReclaimBackoff}.
 *
 * <p>The parts, one job each: {@code Leadership} (election, epoch, fencing), {@code DecisionRound} (one decision, step
 * by step, through {@code IntentAdoption}, {@code LedgerReconciler}, {@code DemandReading}, {@code PoolCensus},
 * {@code LoanDecisions} and {@code LoanActions}), and {@code ControllerStatus} (the status). This class runs them on a
 * schedule and answers for them.
 *
 * <p>Lifecycle: {@link #start()} once, {@link #close()} once. The Curator client is the caller's.
 */
public final class LoanController implements AutoCloseable, ConnectionStateListener {
  private static final Logger LOG = LoggerFactory.getLogger(LoanController.class);

  /** Where this instance stands. */
  public enum Role { NEW, STANDBY, LEADER, SUSPENDED, CLOSED }

  /**
   * @param instanceId this instance's name in the election and the ledger
   * @param inferenceLabel label of the inference pool
   * @param trainingLabel label of the training pool
   * @param zkRoot ZooKeeper path of the latch, epoch and ledger
   * @param intervalMs milliseconds between decisions
   * @param reclaimDeadlineMs deadline of a reclaim, from the request
   * @param reclaimUnknownGraceMs how long a settled scheduler must not have listed a reclaim, without a break, before
   *     its nodes count as on loan again (and never before its deadline)
   * @param decider the decision's settings
   */
  public record Config(String instanceId, String inferenceLabel, String trainingLabel, String zkRoot, long intervalMs,
      long reclaimDeadlineMs, long reclaimUnknownGraceMs, LoanDecider.Settings decider) {
    public Config {
      Checks.notBlank("instanceId", instanceId);
      Checks.notBlank("inferenceLabel", inferenceLabel);
      Checks.notBlank("trainingLabel", trainingLabel);
      if (inferenceLabel.equals(trainingLabel)) {
        throw new IllegalArgumentException("inferenceLabel and trainingLabel must differ, both were " + trainingLabel);
      }
      Checks.notBlank("zkRoot", zkRoot);
      if (intervalMs <= 0) {
        throw new IllegalArgumentException("intervalMs must be > 0, was " + intervalMs);
      }
      if (reclaimDeadlineMs <= 0) {
        throw new IllegalArgumentException("reclaimDeadlineMs must be > 0, was " + reclaimDeadlineMs);
      }
      if (reclaimUnknownGraceMs < 0) {
        throw new IllegalArgumentException("reclaimUnknownGraceMs must be >= 0, was " + reclaimUnknownGraceMs);
      }
      Checks.notNull("decider", decider);
    }

    /** With the default grace of {@code aryl.labels.reclaim.unknown-grace-ms}. */
    public Config(String instanceId, String inferenceLabel, String trainingLabel, String zkRoot, long intervalMs,
        long reclaimDeadlineMs, LoanDecider.Settings decider) {
      this(instanceId, inferenceLabel, trainingLabel, zkRoot, intervalMs, reclaimDeadlineMs,
          Long.parseLong(LabelsConf.RECLAIM_UNKNOWN_GRACE_MS.defaultValue()), decider);
    }
  }

  private final Config config;
  private final Pools pools;
  private final LongSupplier clock;
  private final Leadership leadership;
  private final DecisionRound round;
  private final ScheduledExecutorService executor;
  private final LoanCounters counters = new LoanCounters();
  private final AtomicLong ticks = new AtomicLong();

  private volatile long lastTickMs;
  private volatile long reportedMs;
  private volatile ErrorNote lastError;

  public LoanController(CuratorFramework client, Config config, List<DemandSource> demand, Pools pools,
      LongSupplier clock) {
    Checks.notNull("client", client);
    this.config = Checks.notNull("config", config);
    List<DemandSource> sources = List.copyOf(Checks.notNull("demand", demand));
    if (sources.isEmpty()) {
      throw new IllegalArgumentException("demand must name at least one source, was empty");
    }
    this.pools = Checks.notNull("pools", pools);
    this.clock = Checks.notNull("clock", clock);
    LoanLedger ledger = new LoanLedger(client, config.zkRoot());
    this.leadership = new Leadership(client, ledger, config.instanceId(), config.zkRoot() + "/leader");
    this.round = new DecisionRound(config, sources, pools, ledger, leadership, clock, counters, this::recordError);
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "loan-controller-" + config.instanceId());
      t.setDaemon(true);
      return t;
    });
  }

  public synchronized void start() throws Exception {
    leadership.start();
    executor.scheduleWithFixedDelay(this::tick, 0, config.intervalMs(), TimeUnit.MILLISECONDS);
    LOG.info("loan controller {} started under {}", config.instanceId(), config.zkRoot());
  }

  @Override
  public void close() throws Exception {
    synchronized (this) {
      if (!leadership.stop()) {
        return;
      }
    }
    executor.shutdownNow();
    executor.awaitTermination(10, TimeUnit.SECONDS);
    leadership.leave();
    LOG.info("loan controller {} closed", config.instanceId());
  }

  /** Passes a connection event on to the election's state; {@link #start()} listens to the client already. */
  @Override
  public void stateChanged(CuratorFramework c, ConnectionState state) {
    leadership.stateChanged(c, state);
  }

  /** True while this instance is the leader with a claimed epoch and a live ZooKeeper connection. */
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

  /** Nodes this instance loaned, since start. */
  public long nodesLoaned() {
    return counters.nodesLoaned.get();
  }

  public long reclaimsRequested() {
    return counters.reclaimsRequested.get();
  }

  public long reclaimsAdopted() {
    return counters.reclaimsAdopted.get();
  }

  /** Reclaims the scheduler refused, since start. */
  public long reclaimsRefused() {
    return counters.reclaimsRefused.get();
  }

  public long fencedWrites() {
    return counters.fencedWrites.get();
  }

  public long ticks() {
    return ticks.get();
  }

  /** The ledger as this instance last read it. */
  public List<LoanEntry> ledgerView() {
    return round.lastLedger();
  }

  /** Everything the status endpoint shows. */
  public Map<String, Object> status() {
    return snapshot().toMap();
  }

  private ControllerStatus snapshot() {
    return new ControllerStatus(config.instanceId(), leadership.role(), isActing(), epoch(), leadership.connected(),
        lastTickMs, ticks.get(), round.lastDemand(), round.schedulerSeen(), round.lastDecision(), round.lastLedger(),
        round.unlisted(), round.lastIntent(), round.backoff(), counters.snapshot(), reportedMs, lastError);
  }

  // ---------------------------------------------------------------------------------------------------------------

  private void tick() {
    if (leadership.role() == Role.CLOSED) {
      return;
    }
    ticks.incrementAndGet();
    lastTickMs = clock.getAsLong();
    boolean led = false;
    try {
      if (!leadership.leads()) {
        if (leadership.connected()) {
          round.readLedger();
        }
        return;
      }
      if (leadership.held() == null) {
        if (!leadership.claim()) {
          return;
        }
        round.forget();
        counters.epochsClaimed.incrementAndGet();
      }
      led = true;
      round.run(leadership.held());
    } catch (FencedException e) {
      counters.fencedWrites.incrementAndGet();
      recordError(e.getMessage());
      LOG.warn("loan controller {}: {}; stops acting", config.instanceId(), e.getMessage());
      leadership.standDown();
    } catch (NotActingException e) {
      recordError(e.getMessage());
      LOG.warn("loan controller {}: {}", config.instanceId(), e.getMessage());
    } catch (Exception e) {
      recordError(e.toString());
      LOG.warn("loan controller {}: decision failed: {}", config.instanceId(), e.toString());
    }
    if (led && isActing()) {
      reportToScheduler(); // every decision, so that a newly active scheduler hears from the leader at once
    }
  }

  private void recordError(String message) {
    lastError = new ErrorNote(message, clock.getAsLong());
  }

  /**
   * The leader shows its state in the scheduler's REST resource (after a failover: the new active RM's); a failure
   * there never stops a decision.
   */
  private void reportToScheduler() {
    try {
      pools.reportStatus(status());
      reportedMs = clock.getAsLong();
    } catch (SchedulerResource.StaleReportException e) {
      recordError(e.getMessage());
      LOG.warn("loan controller {}: the scheduler refused its status: {}", config.instanceId(), e.getMessage());
    } catch (Exception e) {
      LOG.debug("loan controller {}: status not shown in the scheduler: {}", config.instanceId(), e.toString());
    }
  }
}
