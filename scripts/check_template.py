#!/usr/bin/env python3
"""Checks of template.yaml that cfn-lint misses.

cfn-lint lints the CloudFormation that the SAM transform produces, so mistakes inside SAM function
properties and Globals get through it: `Architectures: [arm65]`, `Runtime: provided.al2099`, a
`!Ref` typo in Globals or in Policies, `rate(1 minutes)`, a wrong BuildMethod. This script loads the
template itself (with the CloudFormation tags) and asserts what this project relies on, including
that the table and its index match the names the Rust store uses (infra/src/dynamo/item.rs), and
that the front door (FrontDoor: an HTTP API or a Function URL) is wired either way.

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
}
# Metric names the dashboard must show: the code's (functions/src/metrics.rs) and the cost drivers.
DASHBOARD_METRICS = {
    "Requests", "ActionsApplied", "ConflictsRedone", "VersionConflicts", "RoomBusy", "IdempotentReplays",
    "RateLimited", "StoreLoadTime", "StoreSaveTime", "SweeperLag", "LivePosts", "LiveGone",
    "LivePostFailures", "ChatMessages", "BotMoveTime", "EngineFailures",
    "Invocations", "Duration", "ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits",
}
METRICS_RS = ROOT / "functions" / "src" / "metrics.rs"
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
        expect(prop(fn, "MemorySize") == 128, f"{fn}: MemorySize must be 128")
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

    cors_headers = {"Authorization", "Content-Type", "Idempotency-Key", "If-None-Match"}
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
    expect(is_fn_arn(url.get("TargetFunctionArn")) and url.get("AuthType") == "NONE"
           and is_ref(url_cors.get("AllowOrigins"), "AllowedOrigins")
           and cors_headers <= set(url_cors.get("AllowHeaders", []))
           and exposed <= set(url_cors.get("ExposeHeaders", [])),
           "ApiFunctionUrl must front ApiFunction (AuthType NONE) with the same CORS as the HTTP API")
    url_permission = resource("ApiFunctionUrlPermission", "AWS::Lambda::Permission", "UseFunctionUrl")
    expect(url_permission.get("Action") == "lambda:InvokeFunctionUrl"
           and url_permission.get("FunctionUrlAuthType") == "NONE"
           and is_ref(url_permission.get("FunctionName"), "ApiFunction"),
           "ApiFunctionUrlPermission must allow the public Function URL")
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
    return fails


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
