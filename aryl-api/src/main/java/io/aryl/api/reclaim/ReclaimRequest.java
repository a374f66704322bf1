package io.aryl.api.reclaim;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.aryl.api.body.BadRequestException;
import io.aryl.api.body.JsonObjectBody;
import java.io.InputStream;
import java.time.Instant;
import java.util.Set;

/**
 * The body of {@code POST /ws/v1/cluster/aryl/reclaims}: return {@code nodes} loaned nodes to
 * inference by {@code deadlineMs}, of {@code gpuType} if named. Clients write it ({@link
 * io.aryl.api.ArylJson#write}: {@code deadlineMs} only when set, {@code gpuType} only when named);
 * the scheduler reads it with {@link #parse}, which refuses anything else with a {@code 400} naming
 * the field and the value. The answer is the reclaim, a {@link io.aryl.api.status.ReclaimStatus}.
 *
 * @param nodes how many loaned nodes to return, 1 to {@link #MAX_NODES}
 * @param deadlineMs epoch milliseconds by which they must be back; 0 for the scheduler's default
 *     deadline
 * @param gpuType only loaned nodes of this GPU type; null for any
 */
public record ReclaimRequest(
    int nodes,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) long deadlineMs,
    @JsonInclude(JsonInclude.Include.NON_NULL) String gpuType) {
  /** Largest body, in bytes. */
  public static final int MAX_BYTES = 4 * 1024;

  /** Most nodes one reclaim may ask for. */
  public static final int MAX_NODES = 10_000;

  /** How far a deadline may lie in the past (due at once). */
  public static final long DEADLINE_PAST_MS = 3_600_000L;

  /** How far a deadline may lie in the future. */
  public static final long DEADLINE_FUTURE_MS = 7 * 24 * 3_600_000L;

  /** Longest GPU type name. */
  public static final int MAX_GPU_TYPE_CHARS = 64;

  /** The fields there are. */
  public static final Set<String> FIELDS = Set.of("nodes", "deadlineMs", "gpuType");

  /** A valid body, shown when one is not a JSON object. */
  static final String EXAMPLE = "{\"nodes\": 2}";

  /** {@code nodes} nodes by the scheduler's default deadline, of any GPU type. */
  public static ReclaimRequest of(int nodes) {
    return new ReclaimRequest(nodes, 0, null);
  }

  /**
   * The request in {@code body}, checked against {@code nowMs}: one JSON object of at most {@link
   * #MAX_BYTES} bytes with only {@link #FIELDS}, each once; {@code nodes} an integer in [1, {@link
   * #MAX_NODES}], {@code deadlineMs} 0 or epoch milliseconds from an hour before to 7 days after
   * now (seconds instead of milliseconds are caught here), {@code gpuType} a name of 1-64 letters,
   * digits, '.', '_' or '-'.
   *
   * @throws BadRequestException naming the field and the value
   */
  public static ReclaimRequest parse(InputStream body, long nowMs) throws BadRequestException {
    JsonObjectBody req = JsonObjectBody.read(body, MAX_BYTES, EXAMPLE).onlyFields(FIELDS);
    int nodes = (int) req.integer("nodes", 1, MAX_NODES, true, 0);
    long deadlineMs = req.integer("deadlineMs", 0, Long.MAX_VALUE, false, 0);
    if (deadlineMs != 0
        && (deadlineMs < nowMs - DEADLINE_PAST_MS || deadlineMs > nowMs + DEADLINE_FUTURE_MS)) {
      throw new BadRequestException(
          "deadlineMs must be epoch milliseconds within an hour before and 7 days after now"
              + " ("
              + nowMs
              + "), or 0 for the default deadline, was "
              + deadlineMs
              + " ("
              + Instant.ofEpochMilli(deadlineMs)
              + ")");
    }
    String gpuType = req.name("gpuType", MAX_GPU_TYPE_CHARS, false);
    return new ReclaimRequest(nodes, deadlineMs, gpuType);
  }
}
