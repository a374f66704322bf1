package io.aryl.api.loan;

import io.aryl.api.ArylJson;
import io.aryl.api.body.BadRequestException;
import io.aryl.api.body.JsonObjectBody;
import java.io.InputStream;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The body of {@code PUT /ws/v1/cluster/aryl/loan-controller}: the loan controller's leader reports its own state
 * after every decision, and the scheduler shows it under {@code loanController} in its status. Only the fields the
 * scheduler checks are typed: {@code epoch} (the leader's ZooKeeper epoch, which fences a deposed leader),
 * {@code instance} and {@code role} ({@code LEADER}); the rest is the controller's own status, shown as it came.
 *
 * @param epoch the sender's leader epoch, at least 1
 * @param instance the sender's instance name
 * @param status the whole body, as reported
 */
public record LoanControllerReport(long epoch, String instance, Map<String, Object> status) {
  /** Largest body kept, in bytes. */
  public static final int MAX_BYTES = 64 * 1024;
  /** Longest instance name. */
  public static final int MAX_INSTANCE_CHARS = 256;
  /** The field holding the sender's epoch. */
  public static final String EPOCH = "epoch";
  /** The field holding the sender's instance name. */
  public static final String INSTANCE = "instance";
  /** The field holding the sender's role, {@link #LEADER}. */
  public static final String ROLE = "role";
  /** The only role that reports. */
  public static final String LEADER = "LEADER";
  static final String EXAMPLE = "{\"epoch\": 3, \"instance\": \"controller-1\", \"role\": \"LEADER\", ...}";

  public LoanControllerReport {
    // A copy that keeps the report's order and its nulls ("lastError": null is a fact, not a gap).
    status = status == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(status));
  }

  /**
   * The report in {@code body}: one JSON object of at most {@link #MAX_BYTES} bytes, each field once, with
   * {@code epoch} an integer >= 1, {@code instance} printable text of 1-256 characters and {@code role}
   * {@code "LEADER"}.
   *
   * @throws BadRequestException naming the field and the value
   */
  public static LoanControllerReport parse(InputStream body) throws BadRequestException {
    JsonObjectBody req = JsonObjectBody.read(body, MAX_BYTES, EXAMPLE);
    long epoch = req.integer(EPOCH, 1, Long.MAX_VALUE, true, 0);
    String instance = req.text(INSTANCE, MAX_INSTANCE_CHARS);
    req.equalTo(ROLE, LEADER, "only the loan controller's leader reports");
    return new LoanControllerReport(epoch, instance, ArylJson.toMap(req.node()));
  }
}
