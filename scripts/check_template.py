#!/usr/bin/env python3
"""Checks of template.yaml that cfn-lint misses.

cfn-lint lints the CloudFormation that the SAM transform produces, so mistakes inside SAM function
properties and Globals get through it: `Architectures: [arm65]`, `Runtime: provided.al2099`, a
`!Ref` typo in Globals or in Policies, `rate(1 minutes)`, a wrong BuildMethod. This script loads the
template itself (with the CloudFormation tags) and asserts what this project relies on, including
that the table and its index match the names the Rust store uses (infra/src/dynamo/item.rs), and
that the front door (FrontDoor: an HTTP API or a Function URL) is wired either way. With a CDN
(Cdn: CloudFront) it evaluates every deployment the template's Rules allow and requires that no
public origin remains (a Function URL with AWS_IAM and origin access control, invoke permissions
scoped to the distribution, no public permission, no HTTP API with its execute-api endpoint, the
WAF's per-address rate rules when WafRateRule is On). The functions that play computer players'
moves are sized from BENCHMARKS.md's per-move CPU figures (BotMemorySize: the slowest move fits
the timeouts at every allowed size, and the default meets the goals).

Usage: check_template.py [--self-test] TEMPLATE
  --self-test  also breaks a copy of the template in each way above and requires a failure,
               so the checks themselves are known to bite.

Needs PyYAML (it comes with cfn-lint).
"""

import copy
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
ITEM_RS = ROOT / "infra" / "src" / "dynamo" / "item.rs"

FUNCTIONS = {
    # logical id: (cargo binary, longest timeout in seconds)
    "ApiFunction": ("api", 29),  # HTTP API's integration limit is 30 s
    "SweeperFunction": ("sweeper", 59),  # done before the next tick
}
# DeleteItem: a live post that meets 410 Gone deletes the connection's registration (issue 19).
API_ACTIONS = {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"}
SWEEPER_TABLE_ACTIONS = {"dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"}
# Both post announcements to the live channel's connections, and nothing else of its API.
LIVE_POSTS = ("!Sub 'arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:"
              "${LiveApi}/live/POST/@connections/*'")  # repr() of the Tag below
MANAGE_CONNECTIONS = {"execute-api:ManageConnections"}
# Chat (infra/src/dynamo/chat.rs): queries, conditional puts, deletes of the oldest record.
API_CHAT_ACTIONS = {"dynamodb:Query", "dynamodb:PutItem", "dynamodb:DeleteItem"}
SWEEPER_INDEX_ACTIONS = {"dynamodb:Query"}
# Routes with their own, lower throttle: the most of the default rate each may have.
THROTTLED_ROUTES = {"POST /rooms": 0.1, "POST /rooms/{id}/players": 0.2}
# Response headers the API documents (README, openapi.json) that browsers must be able to read.
EXPOSED_HEADERS = {"ETag", "Idempotent-Replayed", "Retry-After"}
# Operations (issue 23, docs/operate.md). The cost allocation tag every taggable resource carries.
STACK_TAG = "madang-stack"
# Resource types that take tags, and how: a list of {Key, Value} or a map. (Lambda URLs and
# permissions, API Gateway routes and integrations, SNS subscriptions and topic policies, and
# CloudWatch dashboards have no tags in CloudFormation.)
TAGGABLE = {
    "AWS::DynamoDB::Table": "list", "AWS::Logs::LogGroup": "list", "AWS::SNS::Topic": "list",
    "AWS::CloudWatch::Alarm": "list", "AWS::Budgets::Budget": "list",
    "AWS::ApiGatewayV2::Api": "map", "AWS::ApiGatewayV2::Stage": "map",
    "AWS::Serverless::Function": "map",
    "AWS::CloudFront::Distribution": "list", "AWS::WAFv2::WebACL": "list",
}
# Alarm logical id: (condition, {(namespace, metric name, dimension name, dimension target)}
# the alarm must watch, TreatMissingData). A dimension target is the resource or pseudo
# parameter its value refers to.
ALARMS = {
    "HttpApi5xxAlarm": ("UseHttpApi", {("AWS/ApiGateway", "5xx", "ApiId", "HttpApi"),
                                       ("AWS/ApiGateway", "Count", "ApiId", "HttpApi")}, "notBreaching"),
    "FunctionUrl5xxAlarm": ("UseFunctionUrl", {("AWS/Lambda", "Url5xxCount", "FunctionName", "ApiFunction"),
                                               ("AWS/Lambda", "UrlRequestCount", "FunctionName", "ApiFunction")},
                            "notBreaching"),
    "ApiErrorsAlarm": (None, {("AWS/Lambda", "Errors", "FunctionName", "ApiFunction")}, "notBreaching"),
    "SweeperErrorsAlarm": (None, {("AWS/Lambda", "Errors", "FunctionName", "SweeperFunction")}, "notBreaching"),
    "ApiThrottlesAlarm": (None, {("AWS/Lambda", "Throttles", "FunctionName", "ApiFunction")}, "notBreaching"),
    "SweeperThrottlesAlarm": (None, {("AWS/Lambda", "Throttles", "FunctionName", "SweeperFunction")},
                              "notBreaching"),
    "LiveErrorsAlarm": (None, {("AWS/Lambda", "Errors", "FunctionName", "LiveFunction")}, "notBreaching"),
    "LiveThrottlesAlarm": (None, {("AWS/Lambda", "Throttles", "FunctionName", "LiveFunction")}, "notBreaching"),
    "TableThrottlesAlarm": (None, {("AWS/DynamoDB", "ReadThrottleEvents", "TableName", "RoomsTable"),
                                   ("AWS/DynamoDB", "WriteThrottleEvents", "TableName", "RoomsTable")},
                            "notBreaching"),
    # Missing data is a sweep that did not happen: breaching.
    "SweeperLagAlarm": (None, {("Madang", "SweeperLag", "Stage", "AWS::StackName")}, "breaching"),
    "SweeperNotRunningAlarm": (None, {("AWS/Lambda", "Invocations", "FunctionName", "SweeperFunction")},
                               "breaching"),
    "LivePostFailuresAlarm": (None, {("Madang", "LivePostFailures", "Stage", "AWS::StackName")}, "notBreaching"),
    "EngineFailuresAlarm": (None, {("Madang", "EngineFailures", "Stage", "AWS::StackName")}, "notBreaching"),
}
# Metric names the dashboard must show: the code's (functions/src/metrics.rs) and the cost drivers.
DASHBOARD_METRICS = {
    "Requests", "ActionsApplied", "ConflictsRedone", "VersionConflicts", "RoomBusy", "IdempotentReplays",
    "RateLimited", "StoreLoadTime", "StoreSaveTime", "SweeperLag", "LivePosts", "LiveGone",
    "LivePostFailures", "ChatMessages", "BotMoves", "BotMoveTime", "EngineFailures",
    "Invocations", "Duration", "ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits",
}
METRICS_RS = ROOT / "functions" / "src" / "metrics.rs"
# The edge (issue 18): the header the CloudFront viewer-request function moves a bearer token to,
# as the Rust edge reads it.
EXTRACT_RS = ROOT / "functions" / "src" / "api" / "extract.rs"
# Function sizing for computer players (issue 22): the functions that play bot moves, the
# per-move CPU figures they are sized from, and Lambda's CPU rule (one vCPU at 1,769 MB, in
# proportion below it).
BOT_FUNCTIONS = ("ApiFunction", "SweeperFunction")
BENCHMARKS_MD = ROOT / "BENCHMARKS.md"
FULL_VCPU_MB = 1769
# The goals per move at the top level, p99 seconds, per board size.
BOT_GOALS_S = {"9×9": 1.0, "19×19": 3.0}
# A read that catches up a bot's move may then long-poll for up to MaxWaitSeconds; the load, the
# save and the answer around it get this much.
STORE_MARGIN_S = 2.0
# A sweep must be able to play at least this many of the slowest moves before its timeout.
SWEEP_BOT_MOVES = 10
PSEUDO = {
    "AWS::AccountId", "AWS::NotificationARNs", "AWS::NoValue", "AWS::Partition",
    "AWS::Region", "AWS::StackId", "AWS::StackName", "AWS::URLSuffix",
}


class Tag:
    """A CloudFormation short-form intrinsic (`!Ref X`, `!GetAtt A.B`, `!Sub ...`)."""

    def __init__(self, name, value):
        self.name, self.value = name, value

    def __repr__(self):
        return f"!{self.name} {self.value!r}"


class CfnLoader(yaml.SafeLoader):
    pass


def _construct(loader, suffix, node):
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    return Tag(suffix, value)


CfnLoader.add_multi_constructor("!", _construct)


def load(path):
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=CfnLoader)


def rust_const(name):
    """The value of `pub const NAME: &str = "...";` in the store's item codec."""
    match = re.search(rf'pub const {name}: &str = "([^"]*)";', ITEM_RS.read_text(encoding="utf-8"))
    if not match:
        raise SystemExit(f"check_template: {name} not found in {ITEM_RS}")
    return match.group(1)


def walk(node, path="$"):
    """Every value in the template, with where it is."""
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from walk(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from walk(value, f"{path}[{i}]")
    elif isinstance(node, Tag):
        yield from walk(node.value, f"{path}!{node.name}")


def refs(node):
    """(kind, target) of every Ref, GetAtt and ${...} in Sub, short or long form."""
    for path, value in walk(node):
        if isinstance(value, Tag):
            if value.name == "Ref":
                yield path, "Ref", value.value
            elif value.name == "GetAtt":
                target = value.value if isinstance(value.value, str) else ".".join(value.value)
                yield path, "GetAtt", target
            elif value.name == "Sub":
                text = value.value if isinstance(value.value, str) else value.value[0]
                local = set(value.value[1]) if isinstance(value.value, list) else set()
                for var in re.findall(r"\$\{([^}!]+)\}", text):
                    if var not in local:
                        yield path, "Sub", var
        elif isinstance(value, dict) and len(value) == 1:
            (key, inner), = value.items()
            if key == "Ref":
                yield path, "Ref", inner
            elif key == "Fn::GetAtt":
                yield path, "GetAtt", inner if isinstance(inner, str) else ".".join(inner)


def check(t):
    """All failures of template `t`, as messages (empty: it passes)."""
    fails = []

    def expect(ok, message):
        if not ok:
            fails.append(message)

    resources = t.get("Resources", {})
    parameters = t.get("Parameters", {})
    expect(t.get("Transform") == "AWS::Serverless-2016-10-31", "Transform must be the SAM transform")

    # Every reference resolves: cfn-lint does not look inside Globals or SAM Policies.
    for path, kind, target in refs(t):
        name = target.split(".")[0] if kind in ("GetAtt", "Sub") else target
        known = name in resources or (kind != "GetAtt" and (name in parameters or name in PSEUDO))
        expect(known, f"{path}: {kind} {target} does not resolve")

    globals_fn = t.get("Globals", {}).get("Function", {})

    def prop(fn, key):
        props = resources.get(fn, {}).get("Properties", {})
        return props.get(key, globals_fn.get(key))

    for fn, (binary, max_timeout) in FUNCTIONS.items():
        res = resources.get(fn)
        if not res:
            fails.append(f"{fn} is missing")
            continue
        expect(res.get("Type") == "AWS::Serverless::Function", f"{fn}: not a SAM function")
        expect(prop(fn, "Runtime") == "provided.al2023", f"{fn}: Runtime must be provided.al2023")
        expect(prop(fn, "Architectures") == ["arm64"], f"{fn}: Architectures must be [arm64]")
        expect(prop(fn, "Handler") == "bootstrap", f"{fn}: Handler must be bootstrap")
        expect(prop(fn, "CodeUri") == ".", f"{fn}: CodeUri must be . (the workspace)")
        # The functions that play computer players' moves take BotMemorySize (checked in
        # check_bot_sizing); the rest stay at the cheapest size.
        memory = prop(fn, "MemorySize")
        if fn in BOT_FUNCTIONS:
            expect(isinstance(memory, Tag) and memory.name == "Ref" and memory.value == "BotMemorySize",
                   f"{fn}: MemorySize must be !Ref BotMemorySize (it plays computer players' moves)")
        else:
            expect(memory == 128, f"{fn}: MemorySize must be 128")
        timeout = prop(fn, "Timeout")
        expect(isinstance(timeout, int) and 0 < timeout <= max_timeout,
               f"{fn}: Timeout {timeout!r} must be 1..{max_timeout} s")
        meta = res.get("Metadata", {})
        expect(meta.get("BuildMethod") == "rust-cargolambda", f"{fn}: BuildMethod must be rust-cargolambda")
        expect(meta.get("BuildProperties", {}).get("Binary") == binary,
               f"{fn}: BuildProperties.Binary must be {binary}")
        # Test support is a cargo feature (`dev`): the deployed build never turns it on.
        build = meta.get("BuildProperties", {})
        expect(not any("dev" in str(v).replace("MADANG_DEV", "") for k, v in build.items() if k != "Binary"),
               f"{fn}: the build must not turn on the `dev` feature (test support)")
        # SAM merges a function's variables over the Globals' ones.
        env = dict((globals_fn.get("Environment") or {}).get("Variables", {}))
        env.update((res.get("Properties", {}).get("Environment") or {}).get("Variables", {}))
        table_ref = env.get("MADANG_TABLE")
        expect(isinstance(table_ref, Tag) and table_ref.name == "Ref" and table_ref.value == "RoomsTable",
               f"{fn}: MADANG_TABLE must be !Ref RoomsTable")
        expect(env.get("MADANG_STORE") == "dynamodb", f"{fn}: MADANG_STORE must be dynamodb")

    # Least privilege: exactly these actions on exactly these resources, no wildcards, no
    # broad policy templates.
    def statements(fn):
        out = []
        for policy in resources.get(fn, {}).get("Properties", {}).get("Policies", []) or []:
            if not isinstance(policy, dict) or "Statement" not in policy:
                fails.append(f"{fn}: only inline statements allowed, not {policy!r}")
                continue
            out.extend(policy["Statement"])
        return out

    def grants(fn):
        found = {}
        for st in statements(fn):
            expect(st.get("Effect") == "Allow", f"{fn}: unexpected statement {st!r}")
            actions = st.get("Action")
            actions = [actions] if isinstance(actions, str) else actions or []
            expect(all("*" not in a for a in actions), f"{fn}: wildcard action in {actions}")
            found.setdefault(repr(st.get("Resource")), set()).update(actions)
        return found

    table_arn = repr(Tag("GetAtt", "RoomsTable.Arn"))
    index = rust_const("DUE_INDEX")
    index_arn = repr(Tag("Sub", f"${{RoomsTable.Arn}}/index/{index}"))
    chat_arn = repr(Tag("GetAtt", "ChatTable.Arn"))
    expect(grants("ApiFunction") == {table_arn: API_ACTIONS, LIVE_POSTS: MANAGE_CONNECTIONS,
                                      chat_arn: API_CHAT_ACTIONS},
           f"ApiFunction must be granted exactly {sorted(API_ACTIONS)} on the table, "
           f"{sorted(API_CHAT_ACTIONS)} on the chat table (and posts to live connections)")
    expect(grants("SweeperFunction") == {table_arn: SWEEPER_TABLE_ACTIONS, index_arn: SWEEPER_INDEX_ACTIONS,
                                         LIVE_POSTS: MANAGE_CONNECTIONS},
           f"SweeperFunction must be granted exactly Query on the {index} index and "
           f"{sorted(SWEEPER_TABLE_ACTIONS)} on the table")

    # The front door: a parameter chooses an HTTP API or a Function URL; both reach ApiFunction
    # with payload format 2.0 and answer CORS themselves.
    door = parameters.get("FrontDoor", {})
    expect(set(door.get("AllowedValues", [])) == {"HttpApi", "FunctionUrl"}
           and door.get("Default") in ("HttpApi", "FunctionUrl"),
           "FrontDoor must be a parameter with AllowedValues HttpApi and FunctionUrl")
    conditions = t.get("Conditions", {})

    def is_condition(name, value):
        cond = conditions.get(name)
        return (isinstance(cond, Tag) and cond.name == "Equals"
                and [repr(v) for v in cond.value] == [repr(Tag("Ref", "FrontDoor")), repr(value)])

    expect(is_condition("UseHttpApi", "HttpApi") and is_condition("UseFunctionUrl", "FunctionUrl"),
           "Conditions UseHttpApi / UseFunctionUrl must test FrontDoor")

    def resource(name, kind, condition):
        res = resources.get(name, {})
        expect(res.get("Type") == kind, f"{name} must be a {kind}")
        expect(res.get("Condition") == condition, f"{name} must have Condition {condition}")
        return res.get("Properties", {})

    def is_ref(value, target):
        return isinstance(value, Tag) and value.name == "Ref" and value.value == target

    def is_fn_arn(value):
        return isinstance(value, Tag) and value.name == "GetAtt" and value.value == "ApiFunction.Arn"

    # x-amz-content-sha256: the JS client sends a POST body's hash, which CloudFront's signature
    # of a Function URL request needs (docs/deploy.md, "Behind CloudFront").
    cors_headers = {"Authorization", "Content-Type", "Idempotency-Key", "If-None-Match", "x-amz-content-sha256"}
    exposed = EXPOSED_HEADERS
    api_props = resource("HttpApi", "AWS::ApiGatewayV2::Api", "UseHttpApi")
    expect(api_props.get("ProtocolType") == "HTTP", "HttpApi must be an HTTP API")
    api_cors = api_props.get("CorsConfiguration", {})
    expect(is_ref(api_cors.get("AllowOrigins"), "AllowedOrigins")
           and cors_headers <= set(api_cors.get("AllowHeaders", []))
           and exposed <= set(api_cors.get("ExposeHeaders", [])),
           f"HttpApi CORS must allow AllowedOrigins, the headers {sorted(cors_headers)}, expose {sorted(exposed)}")
    integration = resource("HttpApiIntegration", "AWS::ApiGatewayV2::Integration", "UseHttpApi")
    expect(integration.get("IntegrationType") == "AWS_PROXY" and integration.get("PayloadFormatVersion") == "2.0"
           and is_fn_arn(integration.get("IntegrationUri")) and is_ref(integration.get("ApiId"), "HttpApi"),
           "HttpApiIntegration must proxy HttpApi to ApiFunction with payload format 2.0")
    route = resource("HttpApiRoute", "AWS::ApiGatewayV2::Route", "UseHttpApi")
    expect(route.get("RouteKey") == "ANY /{proxy+}" and is_ref(route.get("ApiId"), "HttpApi")
           and repr(route.get("Target")) == repr(Tag("Sub", "integrations/${HttpApiIntegration}")),
           "HttpApiRoute must be ANY /{proxy+} to the integration")
    stage = resource("HttpApiStage", "AWS::ApiGatewayV2::Stage", "UseHttpApi")
    expect(stage.get("StageName") == "$default" and stage.get("AutoDeploy") is True,
           "HttpApiStage must be the auto-deployed $default stage")
    throttling = stage.get("DefaultRouteSettings", {})
    expect({"ThrottlingRateLimit", "ThrottlingBurstLimit"} <= set(throttling),
           "HttpApiStage needs default route throttling (rate and burst)")
    permission = resource("HttpApiPermission", "AWS::Lambda::Permission", "UseHttpApi")
    source = permission.get("SourceArn")
    expect(permission.get("Action") == "lambda:InvokeFunction" and permission.get("Principal") == "apigateway.amazonaws.com"
           and is_ref(permission.get("FunctionName"), "ApiFunction")
           and isinstance(source, Tag) and source.name == "Sub" and str(source.value).endswith("${HttpApi}/*"),
           "HttpApiPermission must let API Gateway invoke ApiFunction from every route (SourceArn ${HttpApi}/*)")
    url = resource("ApiFunctionUrl", "AWS::Lambda::Url", "UseFunctionUrl")
    url_cors = url.get("Cors", {})
    expect(is_fn_arn(url.get("TargetFunctionArn"))
           and is_ref(url_cors.get("AllowOrigins"), "AllowedOrigins")
           and cors_headers <= set(url_cors.get("AllowHeaders", []))
           and exposed <= set(url_cors.get("ExposeHeaders", [])),
           "ApiFunctionUrl must front ApiFunction with the same CORS as the HTTP API")
    # Without a CDN the URL is public, and since October 2025 a new URL needs both actions
    # granted to everyone (InvokeFunctionUrl; InvokeFunction through the URL), else it answers 403.
    url_permission = resource("ApiFunctionUrlPermission", "AWS::Lambda::Permission", "PublicFunctionUrl")
    expect(url_permission.get("Action") == "lambda:InvokeFunctionUrl"
           and url_permission.get("FunctionUrlAuthType") == "NONE"
           and is_ref(url_permission.get("FunctionName"), "ApiFunction"),
           "ApiFunctionUrlPermission must allow the public Function URL")
    invoke_permission = resource("ApiFunctionUrlInvokePermission", "AWS::Lambda::Permission", "PublicFunctionUrl")
    expect(invoke_permission.get("Action") == "lambda:InvokeFunction" and invoke_permission.get("Principal") == "*"
           and invoke_permission.get("InvokedViaFunctionUrl") is True
           and is_ref(invoke_permission.get("FunctionName"), "ApiFunction"),
           "ApiFunctionUrlInvokePermission must allow lambda:InvokeFunction through the public URL")
    api_events = resources.get("ApiFunction", {}).get("Properties", {}).get("Events", {}) or {}
    expect(not api_events, "ApiFunction must have no SAM events: the front door resources wire it")

    # The long-poll cap: a parameter, at most 20 s (the function's timeout leaves room for it).
    wait = parameters.get("MaxWaitSeconds", {})
    expect(wait.get("Type") == "Number" and wait.get("MinValue") == 0 and wait.get("MaxValue", 99) <= 20,
           "MaxWaitSeconds must be a Number from 0 to at most 20")
    api_env = (prop("ApiFunction", "Environment") or {}).get("Variables", {})
    expect(is_ref(api_env.get("MADANG_MAX_WAIT_SECS"), "MaxWaitSeconds"),
           "ApiFunction: MADANG_MAX_WAIT_SECS must be !Ref MaxWaitSeconds")
    # Test support is never deployed.
    for path, value in walk(t):
        if isinstance(value, dict) and "MADANG_DEV" in value:
            fails.append(f"{path}: MADANG_DEV must never be set by the template")

    sweeper_events = resources.get("SweeperFunction", {}).get("Properties", {}).get("Events", {}) or {}
    schedules = [e.get("Properties", {}).get("ScheduleExpression")
                 for e in sweeper_events.values() if e.get("Type") == "ScheduleV2"]
    expect(schedules == ["rate(1 minute)"], f"SweeperFunction needs one ScheduleV2 rate(1 minute), got {schedules}")

    # The table matches the store: names from the Rust code, every key attribute defined (and
    # nothing else: DynamoDB rejects unused definitions), keys-only sparse index, TTL, PITR.
    table = resources.get("RoomsTable", {}).get("Properties", {})
    expect(resources.get("RoomsTable", {}).get("Type") == "AWS::DynamoDB::Table", "RoomsTable must be a table")
    expect(table.get("BillingMode") == "PAY_PER_REQUEST", "RoomsTable must be PAY_PER_REQUEST")
    defined = {a["AttributeName"]: a["AttributeType"] for a in table.get("AttributeDefinitions", [])}
    wanted = {rust_const("ID"): "S", rust_const("SHARD"): "S", rust_const("DUE"): "N"}
    expect(defined == wanted, f"AttributeDefinitions {defined} must be {wanted}")
    keys = [(k["AttributeName"], k["KeyType"]) for k in table.get("KeySchema", [])]
    expect(keys == [(rust_const("ID"), "HASH")], f"table KeySchema {keys} must be id HASH")
    gsis = {g["IndexName"]: g for g in table.get("GlobalSecondaryIndexes", [])}
    gsi = gsis.get(index, {})
    gsi_keys = [(k["AttributeName"], k["KeyType"]) for k in gsi.get("KeySchema", [])]
    expect(gsi_keys == [(rust_const("SHARD"), "HASH"), (rust_const("DUE"), "RANGE")],
           f"index {index} KeySchema {gsi_keys} must be s HASH, d RANGE")
    expect(gsi.get("Projection", {}).get("ProjectionType") == "KEYS_ONLY", f"index {index} must be KEYS_ONLY")
    used = {k["AttributeName"] for k in table.get("KeySchema", [])}
    for g in gsis.values():
        used |= {k["AttributeName"] for k in g.get("KeySchema", [])}
    expect(used == set(defined), f"key attributes {sorted(used)} must be exactly the defined {sorted(defined)}")
    ttl = table.get("TimeToLiveSpecification", {})
    expect(ttl.get("AttributeName") == rust_const("EXPIRES") and ttl.get("Enabled") is True,
           "TTL must be enabled on x")
    expect(table.get("PointInTimeRecoverySpecification", {}).get("PointInTimeRecoveryEnabled") is True,
           "point-in-time recovery must be enabled")

    # Abuse bounds (issue 10): reserved concurrency for both functions, so long-polls can
    # neither take the account's whole concurrency nor starve the sweeper; room creation and
    # joins throttled on routes of their own, far below the default (every documented response
    # header is exposed to browsers by both front doors, above).
    def number(value):
        if isinstance(value, Tag) and value.name == "Ref":
            value = parameters.get(value.value, {}).get("Default")
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    for fn in FUNCTIONS:
        reserved = number(resources.get(fn, {}).get("Properties", {}).get("ReservedConcurrentExecutions"))
        expect(reserved is not None and reserved >= 1, f"{fn}: needs ReservedConcurrentExecutions ≥ 1")
    # Per-route throttles exist only on the HTTP API (a Function URL has none: reserved
    # concurrency and the app's per-client limits bound it). They go in the stage's
    # RouteSettings, whose keys must be routes of the API, created before the stage.
    default_rate = number(throttling.get("ThrottlingRateLimit"))
    route_settings = stage.get("RouteSettings", {}) or {}
    route_ids = {res.get("Properties", {}).get("RouteKey"): name for name, res in resources.items()
                 if res.get("Type") == "AWS::ApiGatewayV2::Route" and res.get("Condition") == "UseHttpApi"
                 and is_ref(res.get("Properties", {}).get("ApiId"), "HttpApi")
                 and repr(res.get("Properties", {}).get("Target")) == repr(Tag("Sub", "integrations/${HttpApiIntegration}"))}
    depends = resources.get("HttpApiStage", {}).get("DependsOn", [])
    depends = {depends} if isinstance(depends, str) else set(depends or [])
    for key, share in THROTTLED_ROUTES.items():
        settings = route_settings.get(key, {})
        rate = number(settings.get("ThrottlingRateLimit"))
        expect(rate is not None and default_rate is not None and rate <= default_rate * share,
               f"HttpApiStage RouteSettings[{key!r}] needs a ThrottlingRateLimit at most {share:.0%} of the default")
        expect(number(settings.get("ThrottlingBurstLimit")) is not None,
               f"HttpApiStage RouteSettings[{key!r}] needs a ThrottlingBurstLimit")
        expect(key in route_ids, f"RouteSettings[{key!r}] names no route: HttpApi needs a Route {key} to the integration")
        expect(route_ids.get(key) in depends, f"HttpApiStage must DependsOn the route {key}")

    outputs = t.get("Outputs", {})
    expect({"ApiUrl", "TableName"} <= set(outputs), "Outputs must include ApiUrl and TableName")
    check_operations(t, expect, is_ref)
    check_edge(t, expect)
    check_bot_sizing(t, expect, prop)
    return fails


def evaluate(cond, conditions, params):
    """The value of a condition expression under parameter values `params`."""
    if isinstance(cond, Tag):
        name, value = cond.name, cond.value
        if name == "Equals":
            left, right = (evaluate(v, conditions, params) for v in value)
            return str(left) == str(right)
        if name == "Not":
            return not evaluate(value[0], conditions, params)
        if name == "And":
            return all(evaluate(v, conditions, params) for v in value)
        if name == "Or":
            return any(evaluate(v, conditions, params) for v in value)
        if name == "Condition":
            return evaluate(conditions[value], conditions, params)
        if name == "Ref":
            return params.get(value)
        raise ValueError(f"unsupported in a condition: {cond!r}")
    if isinstance(cond, dict) and len(cond) == 1 and "Condition" in cond:
        return evaluate(conditions[cond["Condition"]], conditions, params)
    return cond


def deployed(t, params):
    """The resources a deployment with parameter values `params` (defaults for the rest) would
    create, with every !If resolved (a !Ref AWS::NoValue branch drops the key)."""
    parameters = t.get("Parameters", {})
    values = {name: p.get("Default") for name, p in parameters.items()}
    values.update(params)
    conditions = t.get("Conditions", {})
    truth = {name: evaluate(cond, conditions, values) for name, cond in conditions.items()}
    gone = object()

    def resolve(node):
        if isinstance(node, Tag) and node.name == "If":
            name, yes, no = node.value
            return resolve(yes if truth[name] else no)
        if isinstance(node, Tag) and node.name == "Ref" and node.value == "AWS::NoValue":
            return gone
        if isinstance(node, dict):
            out = {k: resolve(v) for k, v in node.items()}
            return {k: v for k, v in out.items() if v is not gone}
        if isinstance(node, list):
            return [v for v in (resolve(v) for v in node) if v is not gone]
        return node

    return {name: resolve(res) for name, res in t.get("Resources", {}).items()
            if res.get("Condition") is None or truth.get(res.get("Condition"))}, values


def rules_allow(t, values):
    """Whether the template's Rules accept parameter values `values`."""
    for rule in (t.get("Rules") or {}).values():
        applies = rule.get("RuleCondition")
        if applies is not None and not evaluate(applies, {}, values):
            continue
        for assertion in rule.get("Assertions", []):
            if not evaluate(assertion.get("Assert"), {}, values):
                return False
    return True


def check_edge(t, expect):
    """Issue 18: with a CDN configured, no public origin remains. Every deployment the Rules
    accept with Cdn CloudFront is evaluated: no Function URL without AWS_IAM, no public invoke
    permission, no HTTP API with its default endpoint, the origin signed with origin access
    control for this distribution only, the bearer token moved to the header the Rust edge
    reads, and the WAF's per-address rate rules when WafRateRule is On."""
    parameters = t.get("Parameters", {})
    cdn = parameters.get("Cdn", {})
    expect(set(cdn.get("AllowedValues", [])) == {"None", "CloudFront"} and cdn.get("Default") == "None",
           "Cdn must be a parameter with AllowedValues None and CloudFront, default None")
    header = re.search(r'pub const EDGE_AUTHORIZATION: &str = "([^"]*)";', EXTRACT_RS.read_text(encoding="utf-8"))
    header = header.group(1) if header else None
    expect(header is not None, f"EDGE_AUTHORIZATION not found in {EXTRACT_RS}")
    doors = parameters.get("FrontDoor", {}).get("AllowedValues", [])
    for door in doors:
        for waf in ("On", "Off"):
            values = {"Cdn": "CloudFront", "FrontDoor": door, "WafRateRule": waf}
            res, values = deployed(t, values)
            if not rules_allow(t, values):
                continue
            where = f"with Cdn CloudFront, FrontDoor {door}, WafRateRule {waf}"

            def of_type(kind):
                return {n: r for n, r in res.items() if r.get("Type") == kind}

            # No way in but the distribution.
            for name, r in of_type("AWS::Lambda::Url").items():
                expect(r.get("Properties", {}).get("AuthType") == "AWS_IAM",
                       f"{where}: {name} must have AuthType AWS_IAM (the origin answers only CloudFront)")
            for name, r in of_type("AWS::Lambda::Permission").items():
                props = r.get("Properties", {})
                expect(props.get("Principal") != "*", f"{where}: {name} lets anyone invoke the API")
            for name, r in of_type("AWS::ApiGatewayV2::Api").items():
                props = r.get("Properties", {})
                if props.get("ProtocolType") == "HTTP":
                    expect(props.get("DisableExecuteApiEndpoint") is True,
                           f"{where}: {name} keeps its public execute-api endpoint")
            if door != "FunctionUrl":
                continue
            dists = of_type("AWS::CloudFront::Distribution")
            expect(len(dists) == 1, f"{where}: one CloudFront distribution must front the Function URL")
            for dist_name, dist in dists.items():
                config = dist.get("Properties", {}).get("DistributionConfig", {})
                origins = config.get("Origins", [])
                for origin in origins:
                    oac = origin.get("OriginAccessControlId")
                    target = oac.value.split(".")[0] if isinstance(oac, Tag) and oac.name == "GetAtt" else None
                    oac_res = res.get(target, {})
                    oac_config = oac_res.get("Properties", {}).get("OriginAccessControlConfig", {})
                    expect(oac_res.get("Type") == "AWS::CloudFront::OriginAccessControl"
                           and oac_config.get("OriginAccessControlOriginType") == "lambda"
                           and oac_config.get("SigningBehavior") == "always"
                           and oac_config.get("SigningProtocol") == "sigv4",
                           f"{where}: origin {origin.get('Id')} must carry an origin access control "
                           "(type lambda, SigningBehavior always, sigv4)")
                    expect("ApiFunctionUrl.FunctionUrl" in repr(origin.get("DomainName")),
                           f"{where}: origin {origin.get('Id')} must be the Function URL's host")
                expect(bool(origins), f"{where}: {dist_name} has no origin")
                arn = f"distribution/${{{dist_name}}}"
                granted = {}
                for name, r in of_type("AWS::Lambda::Permission").items():
                    props = r.get("Properties", {})
                    source = props.get("SourceArn")
                    if props.get("Principal") == "cloudfront.amazonaws.com":
                        scoped = isinstance(source, Tag) and source.name == "Sub" and str(source.value).endswith(arn)
                        expect(scoped, f"{where}: {name} must be scoped to {dist_name}'s ARN, not {source!r}")
                        if scoped:
                            granted[props.get("Action")] = props
                expect("lambda:InvokeFunctionUrl" in granted
                       and granted.get("lambda:InvokeFunction", {}).get("InvokedViaFunctionUrl") is True,
                       f"{where}: cloudfront.amazonaws.com needs lambda:InvokeFunctionUrl and "
                       "lambda:InvokeFunction (InvokedViaFunctionUrl) scoped to the distribution")
                # The signature takes Authorization: the token must be moved where the Rust reads it.
                behavior = config.get("DefaultCacheBehavior", {})
                moved = False
                for assoc in behavior.get("FunctionAssociations", []):
                    fn_ref = assoc.get("FunctionARN")
                    fn_name = fn_ref.value.split(".")[0] if isinstance(fn_ref, Tag) else None
                    code = res.get(fn_name, {}).get("Properties", {}).get("FunctionCode", "")
                    moved |= (assoc.get("EventType") == "viewer-request" and header is not None
                              and f"headers['{header}']" in code and "delete headers.authorization" in code)
                expect(moved, f"{where}: a viewer-request function must move Authorization to {header}")
                expect(set(behavior.get("AllowedMethods", [])) >= {"GET", "HEAD", "OPTIONS", "POST"},
                       f"{where}: the distribution must pass POST through")
                acl = config.get("WebACLId")
                if waf == "On":
                    target = acl.value.split(".")[0] if isinstance(acl, Tag) and acl.name == "GetAtt" else None
                    web_acl = res.get(target, {})
                    props = web_acl.get("Properties", {})
                    expect(web_acl.get("Type") == "AWS::WAFv2::WebACL" and props.get("Scope") == "CLOUDFRONT",
                           f"{where}: the distribution needs its CLOUDFRONT-scope web ACL")
                    limits = set()
                    for rule in props.get("Rules", []):
                        rate = rule.get("Statement", {}).get("RateBasedStatement", {})
                        blocks = "Block" in (rule.get("Action") or {})
                        if rate.get("AggregateKeyType") in ("IP", "FORWARDED_IP") and blocks:
                            limit = rate.get("Limit")
                            limits.add(limit.value if isinstance(limit, Tag) and limit.name == "Ref" else None)
                    expect({"WafPostsPer5Min", "WafRequestsPer5Min"} <= limits,
                           f"{where}: the web ACL needs per-address rate rules limited by "
                           "WafPostsPer5Min (POSTs) and WafRequestsPer5Min (all requests)")
                else:
                    expect(acl is None and not of_type("AWS::WAFv2::WebACL"),
                           f"{where}: no web ACL when WafRateRule is Off")
            # Behind CloudFront the source address is CloudFront's: per-client limits off.
            env = res.get("ApiFunction", {}).get("Properties", {}).get("Environment", {}).get("Variables", {})
            for var in ("MADANG_LIMIT_CREATES_PER_MIN", "MADANG_LIMIT_JOINS_PER_MIN"):
                expect(env.get(var) == 0, f"{where}: {var} must be 0 (the source address is CloudFront's)")
    # Without a CDN, the default deployment stays a public Function URL.
    res, _ = deployed(t, {"Cdn": "None", "FrontDoor": "FunctionUrl"})
    url = res.get("ApiFunctionUrl", {}).get("Properties", {})
    expect(url.get("AuthType") == "NONE", "without a CDN, ApiFunctionUrl must be public (AuthType NONE)")
    expect(not any(r.get("Type", "").startswith(("AWS::CloudFront::", "AWS::WAFv2::")) for r in res.values()),
           "without a CDN, no CloudFront or WAF resource may be created")


def benchmark_top_cpu_p99_s():
    """{board size: the top level's CPU p99 per move, in seconds}, from BENCHMARKS.md's 바둑
    computer player table (rows `| 9×9 | 6 8급 | playouts | CPU p50 | CPU p99 | ...`)."""
    top = {}
    for line in BENCHMARKS_MD.read_text(encoding="utf-8").splitlines():
        cells = [c.strip().strip("*") for c in line.strip().strip("|").split("|")]
        if len(cells) < 5 or cells[0] not in BOT_GOALS_S:
            continue
        level = re.match(r"(\d+)\s", cells[1] + " ")
        p99 = re.fullmatch(r"\*{0,2}([\d,.]+) ms\*{0,2}", cells[4])
        if level and p99:
            lvl = int(level.group(1))
            if cells[0] not in top or lvl > top[cells[0]][0]:
                top[cells[0]] = (lvl, float(p99.group(1).replace(",", "")) / 1000)
    return {size: p99 for size, (_, p99) in top.items()}


def check_bot_sizing(t, expect, prop):
    """Issue 22: the functions that play computer players' moves are sized for them. At every
    memory BotMemorySize allows, the slowest measured top-level move fits the API's timeout
    after a long-poll's wait, and a sweep fits ten of them; the default meets the goals."""
    parameters = t.get("Parameters", {})
    param = parameters.get("BotMemorySize", {})
    allowed = param.get("AllowedValues") or []
    default = param.get("Default")
    expect(param.get("Type") == "Number" and allowed and default in allowed,
           "BotMemorySize must be a Number parameter with AllowedValues and a default among them")
    cpu = benchmark_top_cpu_p99_s()
    expect(set(cpu) == set(BOT_GOALS_S),
           f"BENCHMARKS.md must give the top level's CPU p99 for {sorted(BOT_GOALS_S)} (found {cpu})")
    if not cpu or not allowed:
        return

    def wall(cpu_s, memory):
        return cpu_s * FULL_VCPU_MB / min(int(memory), FULL_VCPU_MB)

    worst_cpu = max(cpu.values())
    max_wait = parameters.get("MaxWaitSeconds", {}).get("MaxValue", 20)
    api_timeout = prop("ApiFunction", "Timeout")
    sweep_timeout = prop("SweeperFunction", "Timeout")
    for memory in allowed:
        worst = wall(worst_cpu, memory)
        expect(isinstance(api_timeout, int) and worst + max_wait + STORE_MARGIN_S <= api_timeout,
               f"BotMemorySize {memory}: the slowest move ({worst:.1f} s) + a {max_wait} s long-poll + "
               f"{STORE_MARGIN_S} s must fit ApiFunction's Timeout {api_timeout!r}")
        expect(isinstance(sweep_timeout, int) and SWEEP_BOT_MOVES * worst <= sweep_timeout,
               f"BotMemorySize {memory}: {SWEEP_BOT_MOVES} slowest moves ({SWEEP_BOT_MOVES * worst:.0f} s) "
               f"must fit SweeperFunction's Timeout {sweep_timeout!r}")
    for size, goal in BOT_GOALS_S.items():
        at_default = wall(cpu.get(size, 0), default)
        expect(at_default <= goal, f"BotMemorySize default {default}: a top-level {size} move takes "
                                   f"{at_default:.2f} s at p99, over the {goal} s goal")


def check_operations(t, expect, is_ref):
    """Issue 23: the alarms, their topic, the optional budget, the dashboard, the tags, deletion
    protection and the JSON logs."""
    resources = t.get("Resources", {})
    parameters = t.get("Parameters", {})
    conditions = t.get("Conditions", {})

    def stack_tagged(tags, shape):
        if shape == "map":
            return isinstance(tags, dict) and is_ref(tags.get(STACK_TAG), "AWS::StackName")
        return isinstance(tags, list) and any(
            isinstance(tag, dict) and tag.get("Key") == STACK_TAG and is_ref(tag.get("Value"), "AWS::StackName")
            for tag in tags)

    # Tags: on every taggable resource (functions through Globals or their own Tags).
    global_tags = t.get("Globals", {}).get("Function", {}).get("Tags")
    for name, res in resources.items():
        shape = TAGGABLE.get(res.get("Type"))
        if shape is None:
            continue
        key = "ResourceTags" if res.get("Type") == "AWS::Budgets::Budget" else "Tags"
        tags = res.get("Properties", {}).get(key)
        if res.get("Type") == "AWS::Serverless::Function" and tags is None:
            tags = global_tags
        expect(stack_tagged(tags, shape), f"{name}: must carry the tag {STACK_TAG} = !Ref AWS::StackName")
    env = t.get("Globals", {}).get("Function", {}).get("Environment", {}).get("Variables", {})
    expect(is_ref(env.get("MADANG_STAGE"), "AWS::StackName"),
           "Globals: MADANG_STAGE (the metrics' Stage dimension) must be !Ref AWS::StackName")

    # Safety: deletion protection on the table; the functions log JSON.
    table = resources.get("RoomsTable", {}).get("Properties", {})
    expect(table.get("DeletionProtectionEnabled") is True, "RoomsTable must have DeletionProtectionEnabled: true")
    functions = [n for n, r in resources.items() if r.get("Type") == "AWS::Serverless::Function"]
    for fn in functions:
        logging = resources.get(fn, {}).get("Properties", {}).get("LoggingConfig", {}) or {}
        expect(logging.get("LogFormat") == "JSON", f"{fn}: LoggingConfig.LogFormat must be JSON")

    # The topic, and its optional e-mail subscription.
    expect(resources.get("AlarmTopic", {}).get("Type") == "AWS::SNS::Topic", "AlarmTopic must be an SNS topic")
    email = parameters.get("AlarmEmail", {})
    expect(email.get("Type") == "String" and email.get("Default") == "",
           "AlarmEmail must be a String parameter defaulting to empty")
    sub = resources.get("AlarmEmailSubscription", {})
    sub_props = sub.get("Properties", {})
    has_email = conditions.get("HasAlarmEmail")
    expect(sub.get("Type") == "AWS::SNS::Subscription" and sub.get("Condition") == "HasAlarmEmail"
           and sub_props.get("Protocol") == "email" and is_ref(sub_props.get("Endpoint"), "AlarmEmail")
           and is_ref(sub_props.get("TopicArn"), "AlarmTopic")
           and isinstance(has_email, Tag) and has_email.name == "Not",
           "AlarmEmailSubscription: an email subscription of AlarmEmail to AlarmTopic, only when HasAlarmEmail")

    # The alarms: each watches what it must and notifies the topic.
    for name, (condition, watched, missing) in ALARMS.items():
        res = resources.get(name, {})
        props = res.get("Properties", {})
        expect(res.get("Type") == "AWS::CloudWatch::Alarm", f"{name} must be a CloudWatch alarm")
        expect(res.get("Condition") == condition, f"{name}: Condition must be {condition}")
        actions = props.get("AlarmActions", [])
        expect(any(is_ref(a, "AlarmTopic") for a in actions), f"{name}: AlarmActions must notify AlarmTopic")
        expect(props.get("TreatMissingData") == missing, f"{name}: TreatMissingData must be {missing}")
        stats = []
        if "MetricName" in props:
            stats.append(props)
        for query in props.get("Metrics", []) or []:
            metric = query.get("MetricStat", {}).get("Metric")
            if metric:
                stats.append(metric)
        seen = set()
        for metric in stats:
            for dim in metric.get("Dimensions", []) or []:
                value = dim.get("Value")
                target = value.value if isinstance(value, Tag) and value.name == "Ref" else None
                seen.add((metric.get("Namespace"), metric.get("MetricName"), dim.get("Name"), target))
        expect(watched <= seen, f"{name}: must watch {sorted(watched - seen)}")
    lag = resources.get("SweeperLagAlarm", {}).get("Properties", {})
    expect(lag.get("Threshold") == 120000 and lag.get("ComparisonOperator") == "GreaterThanThreshold",
           "SweeperLagAlarm: more than 120000 ms (two sweeps) late")
    not_running = resources.get("SweeperNotRunningAlarm", {}).get("Properties", {})
    expect(not_running.get("ComparisonOperator") == "LessThanThreshold" and not_running.get("Threshold") == 1,
           "SweeperNotRunningAlarm: fewer than 1 invocation")
    # The metric names the alarms and the dashboard use are the code's.
    code = METRICS_RS.read_text(encoding="utf-8")
    for metric in ("SweeperLag", "LivePostFailures", *sorted(DASHBOARD_METRICS - {
            "Invocations", "Duration", "ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits"})):
        expect(f'"{metric}"' in code, f"metric {metric} is not one functions/src/metrics.rs writes")

    # The budget: optional, this stack's tag, 80 % and 100 % to the topic.
    budget_param = parameters.get("MonthlyBudgetUsd", {})
    expect(budget_param.get("Type") == "Number" and budget_param.get("Default") == 0,
           "MonthlyBudgetUsd must be a Number parameter defaulting to 0 (no budget)")
    budget = resources.get("MonthlyBudget", {})
    expect(budget.get("Type") == "AWS::Budgets::Budget" and budget.get("Condition") == "HasBudget",
           "MonthlyBudget must be an AWS::Budgets::Budget with Condition HasBudget")
    has_budget = conditions.get("HasBudget")
    expect(isinstance(has_budget, Tag) and has_budget.name == "Not"
           and "MonthlyBudgetUsd" in repr(has_budget.value), "HasBudget must test MonthlyBudgetUsd")
    spec = budget.get("Properties", {}).get("Budget", {})
    expect(spec.get("BudgetType") == "COST" and spec.get("TimeUnit") == "MONTHLY"
           and is_ref(spec.get("BudgetLimit", {}).get("Amount"), "MonthlyBudgetUsd"),
           "MonthlyBudget: a monthly COST budget of MonthlyBudgetUsd")
    filters = spec.get("CostFilters", {}).get("TagKeyValue", [])
    expect(any(isinstance(f, Tag) and f.name == "Sub" and f.value == f"user:{STACK_TAG}$${{AWS::StackName}}"
               for f in filters), f"MonthlyBudget: CostFilters.TagKeyValue must be user:{STACK_TAG}$<stack name>")
    thresholds = set()
    for entry in budget.get("Properties", {}).get("NotificationsWithSubscribers", []) or []:
        note = entry.get("Notification", {})
        if (note.get("ThresholdType") == "PERCENTAGE"
                and any(s.get("SubscriptionType") == "SNS" and is_ref(s.get("Address"), "AlarmTopic")
                        for s in entry.get("Subscribers", []))):
            thresholds.add(note.get("Threshold"))
    expect({80, 100} <= thresholds, "MonthlyBudget must notify AlarmTopic at 80 % and 100 %")
    policy = resources.get("AlarmTopicPolicy", {}).get("Properties", {})
    principals = [st.get("Principal", {}).get("Service")
                  for st in policy.get("PolicyDocument", {}).get("Statement", [])]
    expect("budgets.amazonaws.com" in principals, "AlarmTopicPolicy must let AWS Budgets publish to the topic")

    # The dashboard: a body that is JSON once substituted, showing every metric above.
    dash = resources.get("Dashboard", {})
    body = dash.get("Properties", {}).get("DashboardBody")
    expect(dash.get("Type") == "AWS::CloudWatch::Dashboard" and isinstance(body, Tag) and body.name == "Sub",
           "Dashboard must be an AWS::CloudWatch::Dashboard with a !Sub body")
    if isinstance(body, Tag) and isinstance(body.value, str):
        import json
        try:
            parsed = json.loads(re.sub(r"\$\{[^}]+\}", "x", body.value))
        except ValueError as e:
            parsed = {}
            expect(False, f"Dashboard body is not JSON: {e}")
        shown = set()
        for widget in parsed.get("widgets", []):
            for row in widget.get("properties", {}).get("metrics", []):
                shown.update(v for v in row[1:2] if isinstance(v, str))
        expect(DASHBOARD_METRICS <= shown, f"Dashboard must show {sorted(DASHBOARD_METRICS - shown)}")


def self_test(t):
    """Breaks the template in ways cfn-lint lets through; each must be caught."""
    def fn(tpl, name):
        return tpl["Resources"][name]

    breakages = {
        "Architectures: [arm65]": lambda x: x["Globals"]["Function"].__setitem__("Architectures", ["arm65"]),
        "Runtime: provided.al2099": lambda x: x["Globals"]["Function"].__setitem__("Runtime", "provided.al2099"),
        "!Ref typo in Globals": lambda x: x["Globals"]["Function"]["Environment"]["Variables"].__setitem__(
            "MADANG_TABLE", Tag("Ref", "RoomTable")),
        "GetAtt typo in Policies": lambda x: fn(x, "ApiFunction")["Properties"]["Policies"][0]["Statement"][0]
            .__setitem__("Resource", Tag("GetAtt", "RoomTable.Arn")),
        "rate(1 minutes)": lambda x: fn(x, "SweeperFunction")["Properties"]["Events"]["EveryMinute"]["Properties"]
            .__setitem__("ScheduleExpression", "rate(1 minutes)"),
        "BuildMethod makefile": lambda x: fn(x, "ApiFunction")["Metadata"].__setitem__("BuildMethod", "makefile"),
        "API timeout 30": lambda x: fn(x, "ApiFunction")["Properties"].__setitem__("Timeout", 30),
        "extra action": lambda x: fn(x, "ApiFunction")["Properties"]["Policies"][0]["Statement"][0]["Action"]
            .append("dynamodb:Scan"),
        "broad policy template": lambda x: fn(x, "SweeperFunction")["Properties"]["Policies"].append(
            {"DynamoDBCrudPolicy": {"TableName": Tag("Ref", "RoomsTable")}}),
        "GSI attribute undefined": lambda x: fn(x, "RoomsTable")["Properties"]["AttributeDefinitions"].pop(),
        "route without ANY": lambda x: fn(x, "HttpApiRoute")["Properties"].__setitem__("RouteKey", "GET /{proxy+}"),
        "payload format 1.0": lambda x: fn(x, "HttpApiIntegration")["Properties"].__setitem__(
            "PayloadFormatVersion", "1.0"),
        "Function URL without CORS": lambda x: fn(x, "ApiFunctionUrl")["Properties"].pop("Cors"),
        "Function URL unconditional": lambda x: fn(x, "ApiFunctionUrl").pop("Condition"),
        "MADANG_DEV deployed": lambda x: x["Globals"]["Function"]["Environment"]["Variables"].__setitem__(
            "MADANG_DEV", "1"),
        "dev feature built": lambda x: fn(x, "ApiFunction")["Metadata"]["BuildProperties"].__setitem__(
            "Flags", "--features dev"),
        "wait cap above 20": lambda x: x["Parameters"]["MaxWaitSeconds"].__setitem__("MaxValue", 25),
        "sweeper without reserved concurrency": lambda x: fn(x, "SweeperFunction")["Properties"].pop(
            "ReservedConcurrentExecutions"),
        "room creation throttled like actions": lambda x: fn(x, "HttpApiStage")["Properties"]["RouteSettings"][
            "POST /rooms"].__setitem__("ThrottlingRateLimit", Tag("Ref", "ThrottlingRateLimit")),
        "throttled route without its route": lambda x: x["Resources"].pop("HttpApiJoinRoute"),
        "stage created before its routes": lambda x: fn(x, "HttpApiStage").pop("DependsOn"),
        "permission for the proxy route only": lambda x: fn(x, "HttpApiPermission")["Properties"].__setitem__(
            "SourceArn", Tag("Sub", "arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:"
                                    "${HttpApi}/*/*/{proxy+}")),
        "Retry-After hidden from browsers": lambda x: fn(x, "HttpApi")["Properties"]["CorsConfiguration"][
            "ExposeHeaders"].remove("Retry-After"),
        "Idempotent-Replayed hidden on the Function URL": lambda x: fn(x, "ApiFunctionUrl")["Properties"]["Cors"][
            "ExposeHeaders"].remove("Idempotent-Replayed"),
        "table untagged": lambda x: fn(x, "RoomsTable")["Properties"].pop("Tags"),
        "functions untagged": lambda x: x["Globals"]["Function"].pop("Tags"),
        "alarm untagged": lambda x: fn(x, "SweeperLagAlarm")["Properties"].pop("Tags"),
        "no deletion protection": lambda x: fn(x, "RoomsTable")["Properties"].pop("DeletionProtectionEnabled"),
        "text logs": lambda x: fn(x, "SweeperFunction")["Properties"]["LoggingConfig"].pop("LogFormat"),
        "live function logs text": lambda x: fn(x, "LiveFunction")["Properties"]["LoggingConfig"].pop("LogFormat"),
        "live API untagged": lambda x: fn(x, "LiveApi")["Properties"].pop("Tags"),
        "no errors alarm for the live function": lambda x: x["Resources"].pop("LiveErrorsAlarm"),
        "no stage dimension": lambda x: x["Globals"]["Function"]["Environment"]["Variables"].pop("MADANG_STAGE"),
        "throttle alarm for one function only": lambda x: x["Resources"].pop("SweeperThrottlesAlarm"),
        "5xx alarm on the wrong API": lambda x: fn(x, "HttpApi5xxAlarm")["Properties"]["Metrics"][1]["MetricStat"][
            "Metric"]["Dimensions"][0].__setitem__("Value", Tag("Ref", "ApiFunction")),
        "sweeper lag missing data not breaching": lambda x: fn(x, "SweeperLagAlarm")["Properties"].__setitem__(
            "TreatMissingData", "notBreaching"),
        "lag alarm on a misspelt metric": lambda x: fn(x, "SweeperLagAlarm")["Properties"].__setitem__(
            "MetricName", "SweepLag"),
        "alarm to nobody": lambda x: fn(x, "TableThrottlesAlarm")["Properties"].pop("AlarmActions"),
        "no sweeper-not-running alarm": lambda x: x["Resources"].pop("SweeperNotRunningAlarm"),
        "email subscription always": lambda x: fn(x, "AlarmEmailSubscription").pop("Condition"),
        "budget always": lambda x: fn(x, "MonthlyBudget").pop("Condition"),
        "budget without the 80 % alert": lambda x: fn(x, "MonthlyBudget")["Properties"][
            "NotificationsWithSubscribers"].pop(0),
        "budget for the whole account": lambda x: fn(x, "MonthlyBudget")["Properties"]["Budget"].pop("CostFilters"),
        # The edge (issue 18): with Cdn CloudFront, no public origin may remain.
        "Function URL public behind the CDN": lambda x: fn(x, "ApiFunctionUrl")["Properties"].__setitem__(
            "AuthType", "NONE"),
        "public permission behind the CDN": lambda x: fn(x, "ApiFunctionUrlPermission").__setitem__(
            "Condition", "UseFunctionUrl"),
        "public URL without InvokeFunction": lambda x: x["Resources"].pop("ApiFunctionUrlInvokePermission"),
        "OAC detached from the origin": lambda x: fn(x, "EdgeDistribution")["Properties"]["DistributionConfig"][
            "Origins"][0].pop("OriginAccessControlId"),
        "OAC that never signs": lambda x: fn(x, "EdgeOriginAccessControl")["Properties"][
            "OriginAccessControlConfig"].__setitem__("SigningBehavior", "never"),
        "OAC that lets the viewer's Authorization through": lambda x: fn(x, "EdgeOriginAccessControl")[
            "Properties"]["OriginAccessControlConfig"].__setitem__("SigningBehavior", "no-override"),
        "any distribution may invoke": lambda x: fn(x, "EdgeInvokeUrlPermission")["Properties"].__setitem__(
            "SourceArn", Tag("Sub", "arn:${AWS::Partition}:cloudfront::${AWS::AccountId}:distribution/*")),
        "CloudFront without InvokeFunction": lambda x: x["Resources"].pop("EdgeInvokeFunctionPermission"),
        "token not moved off Authorization": lambda x: fn(x, "EdgeDistribution")["Properties"][
            "DistributionConfig"]["DefaultCacheBehavior"].pop("FunctionAssociations"),
        "HTTP API allowed behind the CDN": lambda x: x.pop("Rules"),
        "WAF detached while on": lambda x: fn(x, "EdgeDistribution")["Properties"]["DistributionConfig"].__setitem__(
            "WebACLId", Tag("Ref", "AWS::NoValue")),
        "WAF without the all-requests rate rule": lambda x: fn(x, "EdgeWebAcl")["Properties"]["Rules"].pop(1),
        "WAF counting instead of blocking": lambda x: fn(x, "EdgeWebAcl")["Properties"]["Rules"][0].__setitem__(
            "Action", {"Count": {}}),
        "per-client limits counting CloudFront's address": lambda x: fn(x, "ApiFunction")["Properties"][
            "Environment"]["Variables"].__setitem__("MADANG_LIMIT_CREATES_PER_MIN", Tag("Ref", "CreatesPerMinutePerClient")),
        "CDN by default": lambda x: x["Parameters"]["Cdn"].__setitem__("Default", "CloudFront"),
        "sha256 header refused by CORS": lambda x: fn(x, "ApiFunctionUrl")["Properties"]["Cors"][
            "AllowHeaders"].remove("x-amz-content-sha256"),
        # Function sizing for computer players (issue 22).
        "bot moves at 128 MB": lambda x: fn(x, "ApiFunction")["Properties"].__setitem__("MemorySize", 128),
        "sweeper plays bots at 128 MB": lambda x: fn(x, "SweeperFunction")["Properties"].pop("MemorySize"),
        "BotMemorySize allows 128 MB": lambda x: x["Parameters"]["BotMemorySize"]["AllowedValues"].insert(0, 128),
        "default misses the 9줄 goal": lambda x: x["Parameters"]["BotMemorySize"].__setitem__("Default", 512),
        "sweeper too short for ten bot moves": lambda x: fn(x, "SweeperFunction")["Properties"].__setitem__(
            "Timeout", 20),
        "dashboard without cost drivers": lambda x: fn(x, "Dashboard")["Properties"].__setitem__(
            "DashboardBody", Tag("Sub", fn(x, "Dashboard")["Properties"]["DashboardBody"].value.replace(
                "ConsumedWriteCapacityUnits", "X"))),
    }
    missed = []
    for name, breakage in breakages.items():
        broken = copy.deepcopy(t)
        breakage(broken)
        if not check(broken):
            missed.append(name)
    return len(breakages), missed


def main(argv):
    args = [a for a in argv if a != "--self-test"]
    if len(args) != 1:
        raise SystemExit(__doc__)
    template = load(args[0])
    fails = check(template)
    for message in fails:
        print(f"check_template: {message}", file=sys.stderr)
    if fails:
        return 1
    if "--self-test" in argv:
        count, missed = self_test(template)
        if missed:
            print(f"check_template: self-test: these breakages went unnoticed: {missed}", file=sys.stderr)
            return 1
        print(f"check_template: {args[0]} passes; self-test caught all {count} breakages")
    else:
        print(f"check_template: {args[0]} passes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
