package io.aryl.labels;

import io.aryl.core.model.Checks;
import io.aryl.labels.LoanDecider.Decision;
import io.aryl.labels.LoanDecider.Memory;
import io.aryl.labels.LoanDecider.Observation;
import io.aryl.labels.LoanLedger.DeleteIntent;
import io.aryl.labels.LoanLedger.Epoch;
import io.aryl.labels.LoanLedger.FencedException;
import io.aryl.labels.LoanLedger.PutEntry;
import io.aryl.labels.LoanLedger.PutIntent;
import io.aryl.labels.LoanLedger.Versioned;
import io.aryl.labels.LoanLedger.Write;
import io.aryl.labels.Pools.PoolNode;
import io.aryl.labels.Pools.ReclaimRefusedException;
import io.aryl.labels.Pools.SchedulerReclaim;
import io.aryl.labels.Pools.SchedulerView;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
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
 * <p>Lifecycle: {@link #start()} once, {@link #close()} once. The Curator client is the caller's.
 */
public final class LoanController implements AutoCloseable, ConnectionStateListener {
  private static final Logger LOG = LoggerFactory.getLogger(LoanController.class);
  /** How long an unanswered reclaim request may still reach the scheduler: its HTTP timeout plus slack. */
  static final long INTENT_IN_TRANSIT_MS = 15_000;

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

  /** An error as the status shows it, with when it happened (epoch ms); kept until a newer one replaces it. */
  private record ErrorNote(String message, long atMs) {}

  /** Since when a settled scheduler has not listed reclaim {@code reclaimId} of a RECLAIMING node. */
  private record Unlisted(long reclaimId, long sinceMs) {}

  /** The scheduler as the last decision found it. */
  private record SchedulerSeen(long atMs, boolean reachable, boolean recovering, String address) {}

  /** Thrown inside a decision when this instance must stop acting before its next side effect. */
  private static final class NotActingException extends Exception {
    private static final long serialVersionUID = 1L;

    NotActingException(String message) {
      super(message);
    }
  }

  private final CuratorFramework client;
  private final Config config;
  private final List<DemandSource> demand;
  private final Pools pools;
  private final LongSupplier clock;
  private final LoanLedger ledger;
  private final LoanDecider decider;
  private final LeaderLatch latch;
  private final ScheduledExecutorService executor;

  private volatile boolean connected;
  private volatile Role role = Role.NEW;
  private volatile Epoch epoch;
  private Memory memory = Memory.NONE;
  private volatile Map<String, Object> lastDemand = Map.of();
  private volatile Decision lastDecision;
  private volatile long lastDecisionMs;
  private volatile List<LoanEntry> lastLedger = List.of();
  private volatile ReclaimIntent lastIntent;
  private volatile ErrorNote lastError;
  private volatile long lastTickMs;
  private volatile SchedulerSeen schedulerSeen;
  /** Why the last decision could not be taken ("" when it could): logged when it changes, not every tick. */
  private String lastUnsettled = "";
  /** RECLAIMING nodes whose reclaim the scheduler does not list, by node: leader memory, like {@link #memory}. */
  private volatile Map<String, Unlisted> unlisted = Map.of();
  private volatile ReclaimBackoff backoff = ReclaimBackoff.NONE;
  private volatile long reportedMs;
  private final AtomicLong ticks = new AtomicLong();
  private final AtomicLong nodesLoaned = new AtomicLong();
  private final AtomicLong reclaimsRequested = new AtomicLong();
  private final AtomicLong reclaimsAdopted = new AtomicLong();
  private final AtomicLong reclaimsRefused = new AtomicLong();
  private final AtomicLong nodesReturned = new AtomicLong();
  private final AtomicLong fencedWrites = new AtomicLong();
  private final AtomicLong epochsClaimed = new AtomicLong();

  public LoanController(CuratorFramework client, Config config, List<DemandSource> demand, Pools pools,
      LongSupplier clock) {
    this.client = Checks.notNull("client", client);
    this.config = Checks.notNull("config", config);
    this.demand = List.copyOf(Checks.notNull("demand", demand));
    if (this.demand.isEmpty()) {
      throw new IllegalArgumentException("demand must name at least one source, was empty");
    }
    this.pools = Checks.notNull("pools", pools);
    this.clock = Checks.notNull("clock", clock);
    this.ledger = new LoanLedger(client, config.zkRoot());
    this.decider = new LoanDecider(config.decider());
    this.latch = new LeaderLatch(client, config.zkRoot() + "/leader", config.instanceId());
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "loan-controller-" + config.instanceId());
      t.setDaemon(true);
      return t;
    });
  }

  public synchronized void start() throws Exception {
    if (role != Role.NEW) {
      throw new IllegalStateException("start() may be called once, role is " + role);
    }
    client.getConnectionStateListenable().addListener(this);
    connected = client.getZookeeperClient().isConnected();
    role = connected ? Role.STANDBY : Role.SUSPENDED;
    latch.start();
    executor.scheduleWithFixedDelay(this::tick, 0, config.intervalMs(), TimeUnit.MILLISECONDS);
    LOG.info("loan controller {} started under {}", config.instanceId(), config.zkRoot());
  }

  @Override
  public void close() throws Exception {
    synchronized (this) {
      if (role == Role.CLOSED) {
        return;
      }
      role = Role.CLOSED;
    }
    epoch = null;
    executor.shutdownNow();
    executor.awaitTermination(10, TimeUnit.SECONDS);
    client.getConnectionStateListenable().removeListener(this);
    try {
      latch.close();
    } catch (Exception | AssertionError e) {
      LOG.debug("leader latch of {} did not close cleanly: {}", config.instanceId(), e.toString());
    }
    LOG.info("loan controller {} closed", config.instanceId());
  }

  @Override
  public void stateChanged(CuratorFramework c, ConnectionState state) {
    if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
      connected = false;
      if (epoch != null) {
        LOG.warn("loan controller {}: ZooKeeper connection {}: stops acting (epoch {})", config.instanceId(), state,
            epoch.version());
      }
      epoch = null;
      if (role != Role.CLOSED) {
        role = Role.SUSPENDED;
      }
    } else if (state.isConnected()) {
      connected = true;
    }
  }

  /** True while this instance is the leader with a claimed epoch and a live ZooKeeper connection. */
  public boolean isActing() {
    return epoch != null && connected && client.getState() == CuratorFrameworkState.STARTED && latch.hasLeadership()
        && role == Role.LEADER;
  }

  public Role role() {
    return role;
  }

  public String instanceId() {
    return config.instanceId();
  }

  /** The epoch this instance holds, -1 when it is not acting. */
  public long epoch() {
    Epoch e = epoch;
    return e == null ? -1 : e.version();
  }

  /** Nodes this instance loaned, since start. */
  public long nodesLoaned() {
    return nodesLoaned.get();
  }

  public long reclaimsRequested() {
    return reclaimsRequested.get();
  }

  public long reclaimsAdopted() {
    return reclaimsAdopted.get();
  }

  /** Reclaims the scheduler refused, since start. */
  public long reclaimsRefused() {
    return reclaimsRefused.get();
  }

  public long fencedWrites() {
    return fencedWrites.get();
  }

  public long ticks() {
    return ticks.get();
  }

  /** The ledger as this instance last read it. */
  public List<LoanEntry> ledgerView() {
    return lastLedger;
  }

  /** Everything the status endpoint shows. */
  public Map<String, Object> status() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("instance", config.instanceId());
    out.put("role", role.name());
    out.put("acting", isActing());
    out.put("epoch", epoch());
    out.put("zooKeeperConnected", connected);
    out.put("lastTickMs", lastTickMs);
    out.put("ticks", ticks.get());
    out.put("demand", lastDemand);
    SchedulerSeen seen = schedulerSeen;
    if (seen != null) {
      Map<String, Object> sm = new LinkedHashMap<>();
      sm.put("atMs", seen.atMs());
      sm.put("reachable", seen.reachable());
      sm.put("recovering", seen.recovering());
      sm.put("address", seen.address());
      out.put("scheduler", sm);
    }
    Decision d = lastDecision;
    if (d != null) {
      Map<String, Object> dm = new LinkedHashMap<>();
      dm.put("atMs", lastDecisionMs);
      dm.put("needed", d.needed());
      dm.put("loan", d.loan());
      dm.put("reclaim", d.reclaim());
      dm.put("reason", d.reason());
      out.put("decision", dm);
    }
    List<Map<String, Object>> entries = new ArrayList<>();
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (LoanState s : LoanState.values()) {
      counts.put(s.name(), 0);
    }
    Map<String, Unlisted> unlistedNow = unlisted;
    for (LoanEntry e : lastLedger) {
      counts.merge(e.state().name(), 1, Integer::sum);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("node", e.node());
      m.put("state", e.state().name());
      m.put("epoch", e.epoch());
      m.put("sinceMs", e.sinceMs());
      m.put("reason", e.reason());
      if (e.state() == LoanState.RECLAIMING) {
        m.put("reclaimId", e.reclaimId());
        m.put("deadlineMs", e.deadlineMs());
        Unlisted u = unlistedNow.get(e.node());
        if (u != null && u.reclaimId() == e.reclaimId()) {
          m.put("unlistedSinceMs", u.sinceMs());
        }
      }
      entries.add(m);
    }
    out.put("counts", counts);
    out.put("ledger", entries);
    out.put("pendingReclaimRequest", lastIntent);
    ReclaimBackoff b = backoff;
    if (b.refusals() > 0) {
      Map<String, Object> bm = new LinkedHashMap<>();
      bm.put("refusals", b.refusals());
      bm.put("lastRefusal", b.lastRefusal());
      bm.put("nextAttemptMs", b.nextAttemptMs());
      out.put("reclaimBackoff", bm);
    } else {
      out.put("reclaimBackoff", null);
    }
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("nodesLoaned", nodesLoaned.get());
    c.put("reclaimsRequested", reclaimsRequested.get());
    c.put("reclaimsAdopted", reclaimsAdopted.get());
    c.put("reclaimsRefused", reclaimsRefused.get());
    c.put("nodesReturned", nodesReturned.get());
    c.put("fencedWrites", fencedWrites.get());
    c.put("epochsClaimed", epochsClaimed.get());
    out.put("counters", c);
    out.put("reportedToSchedulerMs", reportedMs);
    ErrorNote err = lastError;
    out.put("lastError", err == null ? null : err.message());
    out.put("lastErrorMs", err == null ? null : err.atMs());
    return out;
  }

  // ---------------------------------------------------------------------------------------------------------------

  private void tick() {
    if (role == Role.CLOSED) {
      return;
    }
    ticks.incrementAndGet();
    lastTickMs = clock.getAsLong();
    if (client.getState() != CuratorFrameworkState.STARTED) {
      connected = false; // the client was closed under us: no events will come any more
    }
    boolean led = false;
    try {
      if (!connected || !latch.hasLeadership()) {
        if (epoch != null) {
          LOG.warn("loan controller {} lost leadership: stops acting (epoch {})", config.instanceId(),
              epoch.version());
        }
        epoch = null;
        role = connected ? Role.STANDBY : Role.SUSPENDED;
        if (connected) {
          readView();
        }
        return;
      }
      if (epoch == null) {
        Epoch claimed = ledger.claimEpoch(config.instanceId());
        if (!connected || !latch.hasLeadership()) {
          return; // lost it while claiming: the next leader claims after us and fences this epoch
        }
        epoch = claimed;
        role = Role.LEADER;
        memory = Memory.NONE;
        unlisted = Map.of();
        backoff = ReclaimBackoff.NONE;
        epochsClaimed.incrementAndGet();
        LOG.info("loan controller {} leads with epoch {}", config.instanceId(), claimed.version());
      }
      led = true;
      lead(epoch);
    } catch (FencedException e) {
      fencedWrites.incrementAndGet();
      recordError(e.getMessage());
      LOG.warn("loan controller {}: {}; stops acting", config.instanceId(), e.getMessage());
      epoch = null;
      role = connected ? Role.STANDBY : Role.SUSPENDED;
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
    } catch (Exception e) {
      LOG.debug("loan controller {}: status not shown in the scheduler: {}", config.instanceId(), e.toString());
    }
  }

  private void readView() {
    try {
      lastLedger = ledger.entries().values().stream().map(Versioned::value).toList();
      lastIntent = ledger.intent().map(Versioned::value).orElse(null);
    } catch (Exception e) {
      recordError("reading the ledger: " + e);
    }
  }

  private void requireActing(Epoch e) throws NotActingException {
    if (!connected || epoch != e || role == Role.CLOSED || !latch.hasLeadership()) {
      throw new NotActingException("no longer leader with epoch " + e.version() + ": action skipped");
    }
  }

  private void commit(Epoch e, List<? extends Write> writes) throws Exception {
    requireActing(e);
    ledger.commit(e, writes);
  }

  private void lead(Epoch e) throws Exception {
    long now = clock.getAsLong();
    List<PoolNode> nodes;
    try {
      nodes = pools.nodes();
    } catch (IOException ex) {
      String why = "the ResourceManager is unreachable: " + ex.getMessage();
      recordError(why);
      noDecision(now, Double.NaN, why);
      return;
    }
    Map<String, PoolNode> byName = new HashMap<>();
    nodes.forEach(n -> byName.put(n.name(), n));

    // 0. The scheduler's word: what it does not list means something only when it is reachable and not recovering.
    SchedulerView view = null;
    String unsettled = "";
    try {
      view = pools.scheduler();
      if (view.recovering()) {
        unsettled = "the scheduler is recovering (NodeManagers re-registering after a restart or failover)";
      }
    } catch (IOException ex) {
      unsettled = "the scheduler is unreachable: " + ex.getMessage();
      recordError(unsettled);
    }
    schedulerSeen = new SchedulerSeen(now, view != null, view != null && view.recovering(), pools.schedulerAddress());
    boolean settled = unsettled.isEmpty();
    if (!unsettled.equals(lastUnsettled)) {
      if (settled) {
        LOG.info("loan controller {}: the scheduler is settled again: decisions resume", config.instanceId());
      } else {
        LOG.warn("loan controller {}: no decision while {}", config.instanceId(), unsettled);
      }
      lastUnsettled = unsettled;
    }

    // 1. A reclaim request whose answer was never recorded: adopt the scheduler's reclaim, or forget the request.
    // Without the scheduler's word it is neither; while the scheduler recovers it may be adopted, not forgotten.
    Optional<Versioned<ReclaimIntent>> intent = ledger.intent();
    Map<String, Versioned<LoanEntry>> entries = ledger.entries();
    boolean requestInTransit = false;
    if (intent.isPresent()) {
      requestInTransit = view == null || !adoptIntent(e, intent.get(), entries, view.reclaims(), now, settled);
      entries = ledger.entries();
    }

    // 2. The ledger follows the labels: labelled inference is home, labelled training is away. A RECLAIMING node goes
    // back on loan only when a settled scheduler has not listed its reclaim for the grace, and after its deadline.
    List<Write> writes = new ArrayList<>();
    Map<String, Unlisted> stillUnlisted = new HashMap<>();
    for (PoolNode n : nodes) {
      Versioned<LoanEntry> v = entries.get(n.name());
      LoanEntry entry = v == null ? null : v.value();
      int version = v == null ? -1 : v.version();
      if (n.labelled(config.inferenceLabel())) {
        if (entry == null) {
          writes.add(new PutEntry(LoanEntry.home(n.name(), e.version(), now, "seen in the inference pool"), -1));
        } else if (entry.state() != LoanState.HOME) {
          String why = entry.state() == LoanState.RECLAIMING
              ? "returned by reclaim " + entry.reclaimId() + (now > entry.deadlineMs() ? " after" : " before")
                  + " its deadline"
              : "relabelled inference while on loan";
          writes.add(new PutEntry(LoanEntry.home(n.name(), e.version(), now, why), version));
          nodesReturned.incrementAndGet();
          LOG.info("loan controller {}: {} is home: {}", config.instanceId(), n.name(), why);
        }
      } else if (n.labelled(config.trainingLabel()) && entry != null) {
        if (entry.state() == LoanState.HOME) {
          writes.add(new PutEntry(LoanEntry.loaned(n.name(), e.version(), now, "found labelled "
              + config.trainingLabel()), version));
        } else if (entry.state() == LoanState.RECLAIMING && settled && !view.lists(entry.reclaimId(), n.name())) {
          long id = entry.reclaimId();
          Unlisted u = unlisted.get(n.name());
          if (u == null || u.reclaimId() != id) {
            u = new Unlisted(id, now);
          }
          if (onLoanAgain(u, entry, now)) {
            String why = "reclaim " + id + " unknown to the scheduler for " + (now - u.sinceMs()) + " ms, past its"
                + " deadline: on loan again";
            writes.add(new PutEntry(LoanEntry.loaned(n.name(), e.version(), now, why), version));
            LOG.info("loan controller {}: {}: {}", config.instanceId(), n.name(), why);
          } else {
            stillUnlisted.put(n.name(), u);
          }
        }
      }
    }
    // A node listed again, not seen, or seen while the scheduler was not settled starts its period afresh.
    unlisted = Map.copyOf(stillUnlisted);
    if (!writes.isEmpty()) {
      commit(e, writes);
      entries = ledger.entries();
    }
    lastLedger = entries.values().stream().map(Versioned::value).toList();
    lastIntent = ledger.intent().map(Versioned::value).orElse(null);

    // 3. Demand.
    double rate = Double.NaN;
    boolean complete = true;
    Map<String, Object> seen = new LinkedHashMap<>();
    for (DemandSource s : demand) {
      try {
        double r = s.rate();
        rate = Double.isNaN(rate) ? r : Math.max(rate, r);
        seen.put(s.name(), r);
      } catch (Exception ex) {
        complete = false;
        seen.put(s.name(), "unavailable: " + ex.getMessage());
      }
    }
    Map<String, Object> dm = new LinkedHashMap<>();
    dm.put("rate", Double.isNaN(rate) ? null : rate);
    dm.put("complete", complete);
    dm.put("sources", seen);
    lastDemand = dm;

    // 4. Decide, only on the word of a settled scheduler.
    if (!settled) {
      noDecision(now, rate, unsettled);
      return;
    }
    int owned = 0;
    int loaned = 0;
    int reclaiming = 0;
    List<String> idle = new ArrayList<>();
    for (Versioned<LoanEntry> v : entries.values()) {
      PoolNode n = byName.get(v.value().node());
      if (n == null) {
        continue; // not running: neither serves nor can be loaned
      }
      owned++;
      switch (v.value().state()) {
        case HOME -> {
          if (n.labelled(config.inferenceLabel()) && n.containers() == 0) {
            idle.add(n.name());
          }
        }
        case LOANED -> loaned++;
        case RECLAIMING -> reclaiming++;
      }
    }
    idle.sort(null);
    Decision d = decider.decide(new Observation(now, rate, complete, owned, idle.size(), loaned, reclaiming), memory);
    if (requestInTransit && (d.loan() > 0 || d.reclaim() > 0)) {
      d = new Decision(0, 0, d.needed(), "waiting for the scheduler's answer to an earlier reclaim request",
          d.memory());
    }
    ReclaimBackoff b = backoff;
    if (d.reclaim() > 0 && !b.allows(now)) {
      d = new Decision(0, 0, d.needed(), String.format("%s; held: the scheduler refused %d time(s) in a row (%s),"
          + " next attempt at %d (in %d ms)", d.reason(), b.refusals(), b.lastRefusal(), b.nextAttemptMs(),
          b.nextAttemptMs() - now), d.memory());
    }
    lastDecision = d;
    lastDecisionMs = now;
    memory = d.memory();

    // 5. Act.
    if (d.loan() > 0) {
      loan(e, entries, idle.subList(0, d.loan()), d.reason(), now);
    } else if (d.reclaim() > 0) {
      reclaim(e, entries, d.reclaim(), d.reason(), now);
    }
  }

  private void loan(Epoch e, Map<String, Versioned<LoanEntry>> entries, List<String> nodes, String reason, long now)
      throws Exception {
    for (String node : nodes) {
      Versioned<LoanEntry> v = entries.get(node);
      commit(e, List.of(new PutEntry(LoanEntry.loaned(node, e.version(), now, reason), v.version())));
      requireActing(e);
      try {
        pools.relabel(node, config.trainingLabel());
        nodesLoaned.incrementAndGet();
        LOG.info("loan controller {} (epoch {}): loaned {}: {}", config.instanceId(), e.version(), node, reason);
      } catch (Exception ex) {
        // Not relabelled: the next reconciliation brings the entry home again (labelled inference).
        recordError("loaning " + node + ": " + ex.getMessage());
        LOG.warn("loan controller {}: relabelling {} failed: {}", config.instanceId(), node, ex.toString());
        return;
      }
    }
  }

  private void reclaim(Epoch e, Map<String, Versioned<LoanEntry>> entries, int count, String reason, long now)
      throws Exception {
    long deadline = now + config.reclaimDeadlineMs();
    ReclaimIntent intent = new ReclaimIntent(count, deadline, now, e.version());
    commit(e, List.of(new PutIntent(intent, -1)));
    requireActing(e);
    SchedulerReclaim answer;
    try {
      answer = pools.requestReclaim(count, deadline);
    } catch (ReclaimRefusedException ex) {
      reclaimsRefused.incrementAndGet();
      String refusal = Objects.toString(ex.getMessage(), "no reason given");
      backoff = backoff.refused(now, config.intervalMs(), refusal);
      String why = "reclaim of " + count + " refused (" + backoff.refusals() + " in a row): " + refusal
          + "; next attempt in " + (backoff.nextAttemptMs() - now) + " ms";
      recordError(why);
      LOG.warn("loan controller {}: {}", config.instanceId(), why);
      commit(e, List.of(new DeleteIntent(0)));
      return;
    }
    backoff = ReclaimBackoff.NONE;
    reclaimsRequested.incrementAndGet();
    LOG.info("loan controller {} (epoch {}): reclaim {} of {} node(s) {} by {}: {}", config.instanceId(), e.version(),
        answer.id(), count, answer.nodes(), deadline, reason);
    commit(e, recordReclaim(e, entries, answer, 0, now, reason));
  }

  /** Ledger writes that record the scheduler's reclaim: its nodes RECLAIMING, the request answered. */
  private static List<Write> recordReclaim(Epoch e, Map<String, Versioned<LoanEntry>> entries, SchedulerReclaim r,
      int intentVersion, long now, String reason) {
    List<Write> writes = new ArrayList<>();
    for (String node : r.nodes()) {
      Versioned<LoanEntry> v = entries.get(node);
      writes.add(new PutEntry(LoanEntry.reclaiming(node, e.version(), now, reason, r.id(), r.deadlineMs()),
          v == null ? -1 : v.version()));
    }
    writes.add(new DeleteIntent(intentVersion));
    return writes;
  }

  /** True when a RECLAIMING node the scheduler does not list counts as on loan again. */
  private boolean onLoanAgain(Unlisted u, LoanEntry entry, long now) {
    return now - u.sinceMs() >= config.reclaimUnknownGraceMs() && now > entry.deadlineMs();
  }

  /**
   * No loan and no reclaim now, and why. The loan hold starts afresh: demand was not judged while no decision was
   * taken, so it has not allowed a loan without a break. The last reclaim (the cooldown) stays.
   */
  private void noDecision(long now, double rate, String why) {
    int needed = Double.isNaN(rate) ? -1 : decider.settings().policy().serversNeeded(rate);
    memory = new Memory(-1, memory.lastReclaimMs());
    lastDecision = new Decision(0, 0, needed, "no decision: " + why, memory);
    lastDecisionMs = now;
  }

  /**
   * @param mayForget false while the scheduler recovers: a request it does not list yet may still be among what it
   *     recovers
   * @return false while the request may still reach the scheduler (nothing adopted or forgotten yet)
   */
  private boolean adoptIntent(Epoch e, Versioned<ReclaimIntent> intent, Map<String, Versioned<LoanEntry>> entries,
      List<SchedulerReclaim> reclaims, long now, boolean mayForget) throws Exception {
    ReclaimIntent i = intent.value();
    // The scheduler's reclaim that answered it: asked after the request was written, known to no ledger entry.
    Optional<SchedulerReclaim> match = reclaims.stream()
        .filter(r -> r.requestedMs() >= i.requestedMs() - 1000 && r.deadlineMs() == i.deadlineMs())
        .filter(r -> entries.values().stream().noneMatch(v -> v.value().reclaimId() == r.id()))
        .findFirst();
    if (match.isPresent()) {
      SchedulerReclaim r = match.get();
      commit(e, recordReclaim(e, entries, r, intent.version(), now, "adopted reclaim " + r.id()
          + " requested by epoch " + i.epoch()));
      reclaimsAdopted.incrementAndGet();
      LOG.info("loan controller {} (epoch {}): adopted reclaim {} of {} requested under epoch {}",
          config.instanceId(), e.version(), r.id(), r.nodes(), i.epoch());
      return true;
    }
    if (!mayForget || now - i.requestedMs() < INTENT_IN_TRANSIT_MS) {
      return false;
    }
    commit(e, List.of(new DeleteIntent(intent.version())));
    LOG.info("loan controller {}: reclaim request of epoch {} never reached the scheduler: forgotten",
        config.instanceId(), i.epoch());
    return true;
  }
}
