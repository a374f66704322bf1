package io.aryl.yarn.web;

import io.aryl.api.ArylJson;
import io.aryl.api.ArylPaths;
import io.aryl.api.ErrorBody;
import io.aryl.api.body.BadRequestException;
import io.aryl.api.loan.LendRequest;
import io.aryl.api.loan.LoanTarget;
import io.aryl.api.loan.StaleTarget;
import io.aryl.api.reclaim.ReclaimRequest;
import io.aryl.api.status.SchedulerStatus;
import io.aryl.yarn.engine.ArylUnavailableException;
import io.aryl.yarn.engine.StaleEpochException;
import io.aryl.yarn.rm.ArylOperations;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Set;
import java.util.function.Predicate;
import javax.inject.Inject;
import javax.inject.Named;
import javax.inject.Singleton;
import javax.servlet.http.HttpServletRequest;
import javax.ws.rs.Consumes;
import javax.ws.rs.GET;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.security.AdminACLsManager;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.RMWebAppUtil;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.RMWebServices;

/**
 * The ResourceManager's REST API with Aryl's resource added. Configure with {@code
 * yarn.webapp.custom.webservice.class=io.aryl.yarn.web.ArylWebServices}: every stock {@code
 * /ws/v1/cluster} endpoint stays, and
 *
 * <ul>
 *   <li>{@code GET /ws/v1/cluster/aryl}: the current plan, nodes and loans, per-application target
 *       vs actual workers, reclaims in flight and past;
 *   <li>{@code POST /ws/v1/cluster/aryl/reclaims} with {@code {"nodes": N, "deadlineMs": epochMs,
 *       "gpuType": "..."}} ({@code deadlineMs} and {@code gpuType} optional): return N loaned nodes
 *       to inference. Admin only when {@code yarn.acl.enable} is on. 201 with the reclaim, 400 when
 *       it cannot be done, with the reason, 503 while Aryl recovers after the ResourceManager
 *       became active (or cannot store the reclaim): ask again shortly.
 *   <li>{@code PUT /ws/v1/cluster/aryl/loan-target} with a {@link LoanTarget}: the loan
 *       controller's leader says how many inference nodes may be on loan, and by when the ones
 *       above must be back; shown under {@code loanTarget} in {@code GET}. Admin only when {@code
 *       yarn.acl.enable} is on. 409 when a target of a newer epoch is in force: the sender was
 *       deposed.
 *   <li>{@code POST /ws/v1/cluster/aryl/loans} with a {@link LendRequest}: nodes lent by hand,
 *       where no loan controller decides. Admin only when {@code yarn.acl.enable} is on.
 * </ul>
 *
 * <p>The paths, bodies and answers are aryl-api's ({@link ArylPaths}, {@link ReclaimRequest},
 * {@link LoanTarget}, {@link LendRequest}, {@link SchedulerStatus}, {@link ErrorBody}), the types
 * the clients compile against. Every write reads its body strictly ({@link
 * io.aryl.api.body.JsonObjectBody}): a body too long, not one JSON object, with an unknown or
 * duplicate field, a value of the wrong type or out of range, or a query parameter other than
 * Hadoop's authentication ones is a 400 naming the field and the value, and nothing changes.
 */
@Singleton
@Path(ArylPaths.ROOT)
public class ArylWebServices extends RMWebServices {
  private final ResourceManager rm;
  private final Configuration conf;

  @Inject
  public ArylWebServices(@Named("rm") ResourceManager rm, @Named("conf") Configuration conf) {
    super(rm, conf);
    this.rm = rm;
    this.conf = conf;
  }

  @GET
  @Path(ArylPaths.STATUS_PATH)
  @Produces(MediaType.APPLICATION_JSON)
  public Response arylStatus() {
    ArylOperations s = aryl();
    if (s == null) {
      return json(Response.Status.NOT_FOUND, error("the scheduler is not ArylScheduler"));
    }
    return json(Response.Status.OK, s.status());
  }

  /**
   * Aryl's page for operators ({@link ArylPage}): pools as node tiles, reclaims, the elastic
   * applications' workers and charts of the last hours; HTML that reloads itself. Served by the
   * RM's web app, so behind the same HTTP authentication as the RM's own pages; with {@code
   * yarn.webapp.filter-entity-list-by-user} it lists only the applications the caller may view, as
   * {@code /ws/v1/cluster/apps} does.
   */
  @GET
  @Path(ArylPaths.PAGE_PATH)
  @Produces(MediaType.TEXT_HTML)
  public Response arylPage(@Context HttpServletRequest hsr) {
    ArylOperations s = aryl();
    if (s == null) {
      return Response.status(Response.Status.NOT_FOUND)
          .type(MediaType.TEXT_HTML)
          .entity(
              "<!DOCTYPE html><html><body><p>The scheduler is not ArylScheduler.</p></body></html>")
          .build();
    }
    SchedulerStatus status = s.status();
    ArylPage.Inputs in =
        new ArylPage.Inputs(
            status,
            s.history().samples(),
            System.currentTimeMillis(),
            s.settings().inferenceLabel(),
            s.settings().trainingLabel(),
            mayView(hsr));
    return Response.ok(ArylPage.render(in), MediaType.TEXT_HTML_TYPE.withCharset("utf-8"))
        .header("Cache-Control", "no-store")
        .build();
  }

  /** The charts' samples (one a minute, the last six hours), oldest first. */
  @GET
  @Path(ArylPaths.HISTORY_PATH)
  @Produces(MediaType.APPLICATION_JSON)
  public Response arylHistory() {
    ArylOperations s = aryl();
    if (s == null) {
      return json(Response.Status.NOT_FOUND, error("the scheduler is not ArylScheduler"));
    }
    return json(Response.Status.OK, s.history().answer());
  }

  /**
   * Whether the caller may see an application in a list: always, unless the RM filters entity lists
   * by user; then as the RM's own list of applications decides (view ACL or queue admin).
   */
  private Predicate<String> mayView(HttpServletRequest hsr) {
    if (!conf.getBoolean(
        YarnConfiguration.FILTER_ENTITY_LIST_BY_USER,
        YarnConfiguration.DEFAULT_DISPLAY_APPS_FOR_LOGGED_IN_USER)) {
      return id -> true;
    }
    return id -> {
      try {
        RMApp app = rm.getRMContext().getRMApps().get(ApplicationId.fromString(id));
        return app != null && hasAccess(app, hsr);
      } catch (IllegalArgumentException e) {
        return false;
      }
    };
  }

  /** Query parameters a write accepts: those of Hadoop's HTTP authentication. */
  static final Set<String> AUTH_PARAMETERS = Set.of("user.name", "doAs", "delegation");

  @POST
  @Path(ArylPaths.RECLAIMS_PATH)
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  public Response reclaim(@Context HttpServletRequest hsr, InputStream body) {
    ArylOperations s = aryl();
    Response refused = refuseWrite(s, hsr);
    if (refused != null) {
      return refused;
    }
    ReclaimRequest request;
    try {
      request = ReclaimRequest.parse(body, System.currentTimeMillis());
    } catch (BadRequestException e) {
      return json(Response.Status.BAD_REQUEST, error(e.getMessage()));
    }
    try {
      return json(Response.Status.CREATED, s.reclaim(request));
    } catch (ArylUnavailableException e) {
      return json(Response.Status.SERVICE_UNAVAILABLE, error(e.getMessage()));
    } catch (IllegalArgumentException | IllegalStateException e) {
      return json(Response.Status.BAD_REQUEST, error(e.getMessage()));
    }
  }

  /**
   * The loan controller leader's target: how many inference nodes may be on loan now and by when
   * the ones above must be back. Stored before it is answered; a target of an older epoch than the
   * one in force is a 409.
   */
  @javax.ws.rs.PUT
  @Path(ArylPaths.LOAN_TARGET_PATH)
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  public Response loanTarget(@Context HttpServletRequest hsr, InputStream body) {
    ArylOperations s = aryl();
    Response refused = refuseWrite(s, hsr);
    if (refused != null) {
      return refused;
    }
    LoanTarget target;
    try {
      target = LoanTarget.parse(body, System.currentTimeMillis());
    } catch (BadRequestException e) {
      return json(Response.Status.BAD_REQUEST, error(e.getMessage()));
    }
    try {
      return json(Response.Status.OK, s.acceptLoanTarget(target));
    } catch (StaleEpochException e) {
      return json(
          Response.Status.CONFLICT, new StaleTarget(e.getMessage(), e.reported(), e.current()));
    } catch (ArylUnavailableException e) {
      return json(Response.Status.SERVICE_UNAVAILABLE, error(e.getMessage()));
    } catch (IllegalArgumentException e) {
      return json(Response.Status.BAD_REQUEST, error(e.getMessage()));
    }
  }

  /**
   * Nodes lent by hand, where no loan controller decides: each an inference node at home with
   * nothing running on it. A 409 while a controller's target is in force.
   */
  @POST
  @Path(ArylPaths.LOANS_PATH)
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  public Response lend(@Context HttpServletRequest hsr, InputStream body) {
    ArylOperations s = aryl();
    Response refused = refuseWrite(s, hsr);
    if (refused != null) {
      return refused;
    }
    LendRequest request;
    try {
      request = LendRequest.parse(body);
    } catch (BadRequestException e) {
      return json(Response.Status.BAD_REQUEST, error(e.getMessage()));
    }
    try {
      return json(Response.Status.CREATED, s.lend(request.nodes()));
    } catch (ArylUnavailableException e) {
      return json(Response.Status.SERVICE_UNAVAILABLE, error(e.getMessage()));
    } catch (IllegalStateException e) {
      return json(Response.Status.CONFLICT, error(e.getMessage()));
    } catch (IllegalArgumentException e) {
      return json(Response.Status.BAD_REQUEST, error(e.getMessage()));
    }
  }

  /**
   * 404 without a running Aryl; 401/403 when ACLs are on and the caller is not a YARN admin; else
   * null.
   */
  private Response refuseWrite(ArylOperations s, HttpServletRequest hsr) {
    if (s == null || !s.running()) {
      return json(Response.Status.NOT_FOUND, error("Aryl is not running in this ResourceManager"));
    }
    for (String parameter : hsr.getParameterMap().keySet()) {
      if (!AUTH_PARAMETERS.contains(parameter)) {
        return json(
            Response.Status.BAD_REQUEST,
            error(
                "unknown query parameter '"
                    + parameter
                    + "'; a write takes"
                    + " its arguments in the JSON body (query parameters: "
                    + String.join(", ", AUTH_PARAMETERS.stream().sorted().toList())
                    + ")"));
      }
    }
    if (!conf.getBoolean(
        YarnConfiguration.YARN_ACL_ENABLE, YarnConfiguration.DEFAULT_YARN_ACL_ENABLE)) {
      return null;
    }
    UserGroupInformation caller = RMWebAppUtil.getCallerUserGroupInformation(hsr, true);
    if (caller == null) {
      return json(Response.Status.UNAUTHORIZED, error("this call needs an authenticated caller"));
    }
    if (!new AdminACLsManager(conf).isAdmin(caller)) {
      return json(
          Response.Status.FORBIDDEN,
          error("user " + caller.getShortUserName() + " is not a YARN admin"));
    }
    return null;
  }

  /** Aryl in this ResourceManager's scheduler, or null when the scheduler is not ArylScheduler. */
  private ArylOperations aryl() {
    return rm.getResourceScheduler() instanceof ArylOperations.Provider p ? p.aryl() : null;
  }

  private static ErrorBody error(String message) {
    return new ErrorBody(message);
  }

  private static Response json(Response.Status status, Object body) {
    try {
      return Response.status(status)
          .type(MediaType.APPLICATION_JSON)
          .entity(ArylJson.write(body))
          .build();
    } catch (UncheckedIOException e) {
      return Response.serverError()
          .entity(ArylJson.write(error("could not write the answer")))
          .build();
    }
  }
}
