package io.aryl.yarn.engine;

import io.aryl.core.model.GpuType;
import io.aryl.core.predict.HistoryPredictor;
import io.aryl.yarn.conf.ArylSettings;
import io.aryl.yarn.round.AppView;
import io.aryl.yarn.round.NodeView;
import io.aryl.yarn.round.PlanBook;
import io.aryl.yarn.round.RoundInput;
import io.aryl.yarn.round.SnapshotTranslator;
import java.util.Map;
import java.util.TreeMap;

/**
 * The snapshot a round plans on: the ResourceManager's view with what the engine remembers (the
 * last promises, the drains, the fenced nodes, each job's progress) and, with {@code
 * aryl.scheduler.predictor=history}, runtimes predicted from the jobs of the same kind that
 * finished. Not thread-safe: the engine uses it under its lock.
 */
final class RoundSnapshot {
  private final ArylSettings settings;
  private final Memory memory;
  private final SnapshotTranslator translator;
  private final HistoryPredictor history = new HistoryPredictor();
  private final long originMs;

  /**
   * A snapshot of what {@code memory} remembers, a node being inference's as its pool says.
   *
   * @param originMs epoch ms the planning clock counts from
   */
  RoundSnapshot(ArylSettings settings, Memory memory, long originMs) {
    this.settings = settings;
    this.memory = memory;
    this.translator =
        new SnapshotTranslator(
            settings.trainingLabel(),
            GpuType.of(settings.gpuType()),
            memory.pool::owns,
            memory.pool::changes,
            settings.speedup());
    this.originMs = originMs;
  }

  /**
   * A job of {@code kind} finished successfully after this much work at its minimum width's pace.
   */
  void finished(String kind, double attainedBaseS) {
    if (settings.predictor() == ArylSettings.Predictor.HISTORY) {
      history.observe(kind, attainedBaseS);
    }
  }

  /**
   * The round's input: {@code view} with the drains, the fenced nodes and each job's measured
   * progress as remembered now.
   *
   * @param book the last round's promises
   */
  RoundInput translate(RmView view, PlanBook book) {
    Map<String, AppView> views = view.elastic();
    if (settings.predictor() == ArylSettings.Predictor.HISTORY) {
      // Progress stays measured; the history predictor only replaces the runtime a job's tag
      // announced.
      views = withHistoryRuntimes(views);
    }
    Map<String, AppView> planned = new TreeMap<>(views);
    // A job being moved wants back, on its new nodes, the workers it is being moved off (left out
    // as draining).
    memory
        .drains
        .moving()
        .forEach((id, n) -> planned.computeIfPresent(id, (k, v) -> v.askingMore(n)));
    planned.putAll(view.plainDemand());
    long now = view.nowMs();
    // A container killed at its grace is gone for the plan: its kill reaches the Capacity Scheduler
    // through its event queue, and on a busy ResourceManager it stayed on its node for rounds
    // after.
    // Counted as still there, its GPU was room that the gang it was drained for did not have: a
    // plain application's second container was planned around it, and another worker drained.
    return translator.translate(
        (now - originMs) / 1000.0,
        NodeView.without(view.nodes(), memory.drains.killed()),
        planned,
        book,
        memory.drains.ids(),
        memory.reclaims.fencedNodes(),
        memory.progress.all(),
        (id, p) -> view.checkpoint(id).sinceCheckpointS(now, p.sinceChangeS()),
        view.tenants());
  }

  private Map<String, AppView> withHistoryRuntimes(Map<String, AppView> views) {
    Map<String, AppView> out = new TreeMap<>();
    views.forEach(
        (id, v) -> {
          String kind = v.shape().kind();
          if (kind.isEmpty() || history.samples(kind) < HistoryPredictor.DEFAULT_MIN_SAMPLES) {
            out.put(id, v);
          } else {
            out.put(id, v.withShape(v.shape().withPredictedRuntimeS(history.expectedTotalS(kind))));
          }
        });
    return out;
  }
}
