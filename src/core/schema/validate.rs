//! Validating a value against a compiled schema: each keyword in the order the schema writes
//! it (`required` with `properties`, before them), each misfit at its pointer in the value.

use std::collections::HashSet;
use std::rc::Rc;

use serde_json::{Map, Number, Value};

use super::budget::{Budget, MOST_KEPT_BYTES, MOST_STEPS};
use super::keywords::{compare, count, is_type, push, tuple_items, type_names, unexpected, TYPES};
use super::{alike, compile};
use super::{format, Draft, Invalid, InvalidKind, Schema, MOST_DEPTH};

/// The misfit said of a value whose check spent the whole budget.
pub fn too_costly() -> Invalid {
    Invalid {
        pointer: String::new(),
        message: format!(
            "is too costly to check against its schema: the check stopped after {MOST_STEPS} steps or {} KiB of misfits",
            MOST_KEPT_BYTES / 1024
        ),
        kind: InvalidKind::Other,
    }
}

pub struct Walk<'s, 'o> {
    schema: &'s Schema,
    budget: Rc<Budget>,
    found: Option<&'o mut Vec<Invalid>>,
    /// The `$ref` targets followed since the walk last went into a part of the value: one met
    /// again is a loop that constrains nothing more.
    chain: Vec<&'s str>,
    /// The dynamic scope: the resources the walk is in, outermost first, by their addresses.
    scope: Vec<usize>,
    depth: usize,
    /// Set when the walk only asks whether the value fits, and one misfit settles it.
    misfit: bool,
}

impl<'s, 'o> Walk<'s, 'o> {
    pub fn new(schema: &'s Schema, found: &'o mut Vec<Invalid>) -> Self {
        Walk { found: Some(found), ..Walk::quiet(schema) }
    }

    pub fn quiet(schema: &'s Schema) -> Self {
        let (chain, scope) = (Vec::new(), Vec::new());
        Walk { schema, budget: Budget::full(), found: None, chain, scope, depth: 0, misfit: false }
    }

    /// A walk of its own that shares this one's budget and place in the schema.
    fn aside<'p>(&self, found: Option<&'p mut Vec<Invalid>>, chain: Vec<&'s str>) -> Walk<'s, 'p> {
        let scope = self.scope.clone();
        Walk { schema: self.schema, budget: self.budget.clone(), found, chain, scope, depth: self.depth, misfit: false }
    }

    /// Whether `value` fits `schema`, saying nothing of how it does not.
    pub fn fits(&mut self, schema: &Value, value: &Value) -> bool {
        let mut quiet = self.aside(None, self.chain.clone());
        quiet.check(schema, value, &mut String::new());
        !quiet.misfit
    }

    /// Whether the check stopped for want of budget: its answer then says nothing.
    pub fn spent(&self) -> bool {
        self.budget.spent()
    }

    fn done(&self) -> bool {
        self.spent() || (self.misfit && self.found.is_none())
    }

    fn say(&mut self, pointer: &str, message: String, kind: InvalidKind) {
        self.misfit = true;
        if !self.budget.spend(message.len() >> 6) {
            return;
        }
        if let Some(found) = self.found.as_deref_mut() {
            if self.budget.keep(message.len() + pointer.len()) {
                found.push(Invalid { pointer: pointer.to_string(), message, kind });
            }
        }
    }

    fn misfit(&mut self, pointer: &str, message: String) {
        self.say(pointer, message, InvalidKind::Other);
    }

    /// Checks `value`, found at `at`, against `schema`.
    pub fn check(&mut self, schema: &Value, value: &Value, at: &mut String) {
        let object = match schema {
            Value::Bool(true) => return,
            Value::Object(o) => o,
            _ => return self.misfit(at, format!("False schema does not allow {value}")),
        };
        if self.depth >= MOST_DEPTH {
            return self.misfit(at, format!("is nested more than {MOST_DEPTH} schemas deep here"));
        }
        if !self.budget.spend(1 + object.len()) {
            return;
        }
        self.depth += 1;
        let entered = self.enter(object);
        let draft = self.schema.draft;
        if draft < Draft::Nineteen && object.contains_key("$ref") {
            // Before 2019-09 a `$ref` stands for its whole schema; the words beside it are not read.
            if let Some(reference) = object.get("$ref") {
                self.reference(reference, value, at);
            }
        } else {
            for (keyword, rule) in object {
                if self.done() {
                    break;
                }
                self.keyword(object, keyword, rule, value, at);
            }
        }
        self.leave(entered);
        self.depth -= 1;
    }

    /// Puts `object` on the dynamic scope if it is a resource of its own (2019-09 on): whether it did.
    fn enter(&mut self, object: &Map<String, Value>) -> bool {
        let address = object as *const Map<String, Value> as usize;
        let resource = self.schema.draft >= Draft::Nineteen
            && (object.contains_key("$id") || address == compile::address(&self.schema.root));
        if resource {
            self.scope.push(address);
        }
        resource
    }

    fn leave(&mut self, entered: bool) {
        if entered {
            self.scope.pop();
        }
    }

    /// Where a `$ref` the compile resolved leads from here: its pointer, its schema and the
    /// resource that holds it. A dynamic one goes to the anchor the dynamic scope names: in
    /// 2020-12 that of the outermost resource that has one; in 2019-09 that of the outermost
    /// resource reached going out from the innermost while each has a `$recursiveAnchor`.
    fn follow(&self, reference: &Value) -> Option<(&'s str, &'s Value, usize)> {
        let schema = self.schema;
        let target = schema.refs.get(&(reference as *const Value as usize))?;
        let mut found = (target.pointer.as_str(), target.resource);
        if let Some(name) = &target.dynamic {
            let anchor = |resource: &usize| Some((schema.dynamic.get(&(*resource, name.clone()))?.as_str(), *resource));
            if schema.draft == Draft::Twenty {
                found = self.scope.iter().find_map(anchor).unwrap_or(found);
            } else {
                found = self.scope.iter().rev().map_while(anchor).last().unwrap_or(found);
            }
        }
        Some((found.0, schema.root.pointer(found.0)?, found.1))
    }

    fn reference(&mut self, reference: &Value, value: &Value, at: &mut String) {
        let Some((pointer, target, resource)) = self.follow(reference) else { return };
        if self.chain.contains(&pointer) {
            return;
        }
        self.chain.push(pointer);
        self.scope.push(resource);
        self.check(target, value, at);
        self.scope.pop();
        self.chain.pop();
    }

    /// Checks a part of the value, at `segment` under `at`.
    fn part(&mut self, schema: &Value, value: &Value, at: &mut String, segment: &str) {
        let length = at.len();
        *at = push(at, segment);
        let chain = std::mem::take(&mut self.chain);
        self.check(schema, value, at);
        self.chain = chain;
        at.truncate(length);
    }

    fn keyword(&mut self, object: &Map<String, Value>, keyword: &str, rule: &Value, value: &Value, at: &mut String) {
        let draft = self.schema.draft;
        match (keyword, value) {
            ("$ref" | "$dynamicRef" | "$recursiveRef", _) => self.reference(rule, value, at),
            ("type", _) => {
                let names = type_names(rule).unwrap_or_default();
                if !names.iter().any(|name| is_type(value, name, draft)) {
                    self.misfit(at, type_sentence(value, &names));
                }
            }
            ("enum", _) => {
                let options = rule.as_array().map(Vec::as_slice).unwrap_or_default();
                let mut met = false;
                for option in options {
                    match alike::equal(option, value, &self.budget) {
                        Some(true) => met = true,
                        Some(false) => continue,
                        None => return,
                    }
                    break;
                }
                if !met {
                    self.misfit(at, enum_sentence(value, options));
                }
            }
            ("const", _) if alike::equal(rule, value, &self.budget) == Some(false) => {
                self.misfit(at, format!("{rule} was expected"))
            }
            ("allOf", _) => {
                for sub in rule.as_array().map(Vec::as_slice).unwrap_or_default() {
                    self.check(sub, value, at);
                }
            }
            ("anyOf", _) => {
                let subs = rule.as_array().map(Vec::as_slice).unwrap_or_default();
                if !subs.iter().any(|sub| self.fits(sub, value)) {
                    self.misfit(
                        at,
                        format!("{value} is not valid under any of the schemas listed in the 'anyOf' keyword"),
                    );
                }
            }
            ("oneOf", _) => {
                let subs = rule.as_array().map(Vec::as_slice).unwrap_or_default();
                let mut fitting = 0;
                for sub in subs {
                    if self.fits(sub, value) {
                        fitting += 1;
                        if fitting > 1 {
                            break;
                        }
                    }
                }
                match fitting {
                    0 => self.misfit(
                        at,
                        format!("{value} is not valid under any of the schemas listed in the 'oneOf' keyword"),
                    ),
                    1 => {}
                    _ => self.misfit(
                        at,
                        format!("{value} is valid under more than one of the schemas listed in the 'oneOf' keyword"),
                    ),
                }
            }
            ("not", _) if self.fits(rule, value) => self.misfit(at, format!("{rule} is not allowed for {value}")),
            ("if", _) => {
                let then = if self.fits(rule, value) { object.get("then") } else { object.get("else") };
                if let Some(then) = then {
                    self.check(then, value, at);
                }
            }
            ("properties", Value::Object(fields)) => {
                if let Some(required) = object.get("required") {
                    self.required(required, fields, at);
                }
                for (name, sub) in rule.as_object().into_iter().flatten() {
                    if let Some(field) = fields.get(name) {
                        self.part(sub, field, at, name);
                    }
                }
            }
            ("required", Value::Object(fields)) if !object.contains_key("properties") => {
                self.required(rule, fields, at)
            }
            ("patternProperties", Value::Object(fields)) => {
                for (pattern, sub) in rule.as_object().into_iter().flatten() {
                    for (name, field) in fields {
                        if self.matches(pattern, name) {
                            self.part(sub, field, at, name);
                        }
                    }
                }
            }
            ("additionalProperties", Value::Object(fields)) => {
                let extra: Vec<&String> = fields.keys().filter(|name| !self.declared(object, name)).collect();
                if rule == &Value::Bool(false) {
                    if !extra.is_empty() {
                        let names: Vec<String> = extra.into_iter().cloned().collect();
                        let message = format!("Additional properties are not allowed ({})", unexpected(&names));
                        self.say(at, message, InvalidKind::Additional(names));
                    }
                } else {
                    for name in extra {
                        if let Some(field) = fields.get(name) {
                            self.part(rule, field, at, name);
                        }
                    }
                }
            }
            ("propertyNames", Value::Object(fields)) if rule == &Value::Bool(false) && !fields.is_empty() => {
                self.misfit(at, format!("False schema does not allow {value}"))
            }
            ("propertyNames", Value::Object(fields)) => {
                for name in fields.keys() {
                    let mut inner = Vec::new();
                    let mut walk = self.aside(Some(&mut inner), Vec::new());
                    walk.check(rule, &Value::String(name.clone()), &mut String::new());
                    if let Some(first) = inner.into_iter().next() {
                        self.misfit(at, first.message);
                    }
                }
            }
            ("minProperties", Value::Object(fields)) => {
                if let Some(least) = count(rule).filter(|least| (fields.len() as u64) < *least) {
                    self.misfit(at, format!("{value} has less than {least} propert{}", plural(least, "y", "ies")));
                }
            }
            ("maxProperties", Value::Object(fields)) => {
                if let Some(most) = count(rule).filter(|most| (fields.len() as u64) > *most) {
                    self.misfit(at, format!("{value} has more than {most} propert{}", plural(most, "y", "ies")));
                }
            }
            ("dependentRequired", Value::Object(fields)) => {
                for (name, needs) in rule.as_object().into_iter().flatten() {
                    if fields.contains_key(name) {
                        self.required(needs, fields, at);
                    }
                }
            }
            ("dependentSchemas", Value::Object(fields)) => {
                for (name, sub) in rule.as_object().into_iter().flatten() {
                    if fields.contains_key(name) {
                        self.check(sub, value, at);
                    }
                }
            }
            ("dependencies", Value::Object(fields)) => {
                for (name, need) in rule.as_object().into_iter().flatten() {
                    if fields.contains_key(name) {
                        match need {
                            Value::Array(_) => self.required(need, fields, at),
                            _ => self.check(need, value, at),
                        }
                    }
                }
            }
            ("unevaluatedProperties", Value::Object(fields)) => {
                let mut seen = HashSet::new();
                self.evaluated_properties(object, value, &mut seen, true);
                let names: Vec<String> = fields
                    .iter()
                    .filter(|(name, field)| !seen.contains(name.as_str()) && !self.fits(rule, field))
                    .map(|(name, _)| name.clone())
                    .collect();
                if !names.is_empty() {
                    self.misfit(at, format!("Unevaluated properties are not allowed ({})", unexpected(&names)));
                }
            }
            ("prefixItems", Value::Array(items)) => {
                for (i, (sub, item)) in rule.as_array().into_iter().flatten().zip(items).enumerate() {
                    self.part(sub, item, at, &i.to_string());
                }
            }
            ("items", Value::Array(items)) => match tuple_items(object, draft) {
                Some(subs) => {
                    for (i, (sub, item)) in subs.iter().zip(items).enumerate() {
                        self.part(sub, item, at, &i.to_string());
                    }
                }
                None => {
                    let skip = if draft == Draft::Twenty { prefix_len(object) } else { 0 };
                    for (i, item) in items.iter().enumerate().skip(skip) {
                        self.part(rule, item, at, &i.to_string());
                    }
                }
            },
            ("additionalItems", Value::Array(items)) => {
                if let Some(limit) = tuple_items(object, draft).map(Vec::len) {
                    if rule == &Value::Bool(false) && items.len() > limit {
                        let extra: Vec<String> = items[limit..].iter().map(Value::to_string).collect();
                        let verb = if extra.len() == 1 { "was" } else { "were" };
                        self.misfit(
                            at,
                            format!("Additional items are not allowed ({} {verb} unexpected)", extra.join(", ")),
                        );
                    } else {
                        for (i, item) in items.iter().enumerate().skip(limit) {
                            self.part(rule, item, at, &i.to_string());
                        }
                    }
                }
            }
            ("unevaluatedItems", Value::Array(items)) => {
                let mut seen = vec![false; items.len()];
                self.evaluated_items(object, value, &mut seen, true);
                let extra: Vec<String> = items
                    .iter()
                    .zip(&seen)
                    .filter(|(item, seen)| !**seen && !self.fits(rule, item))
                    .map(|(item, _)| item.to_string())
                    .collect();
                if !extra.is_empty() {
                    self.misfit(at, format!("Unevaluated items are not allowed ({})", unexpected(&extra)));
                }
            }
            ("contains", Value::Array(items)) => {
                let least = if draft >= Draft::Nineteen { object.get("minContains").and_then(count) } else { None };
                let most = if draft >= Draft::Nineteen { object.get("maxContains").and_then(count) } else { None };
                let least = least.unwrap_or(1);
                let mut fitting = 0u64;
                for item in items {
                    if self.fits(rule, item) {
                        fitting += 1;
                    }
                }
                if fitting < least || most.is_some_and(|most| fitting > most) {
                    self.misfit(at, format!("None of {value} are valid under the given schema"));
                }
            }
            ("minItems", Value::Array(items)) => {
                if let Some(least) = count(rule).filter(|least| (items.len() as u64) < *least) {
                    self.misfit(at, format!("{value} has less than {least} item{}", plural(least, "", "s")));
                }
            }
            ("maxItems", Value::Array(items)) => {
                if let Some(most) = count(rule).filter(|most| (items.len() as u64) > *most) {
                    self.misfit(at, format!("{value} has more than {most} item{}", plural(most, "", "s")));
                }
            }
            ("uniqueItems", Value::Array(items))
                if rule == &Value::Bool(true) && alike::unique(items, &self.budget) == Some(false) =>
            {
                self.misfit(at, format!("{value} has non-unique elements"))
            }
            ("minLength", Value::String(text)) => {
                if let Some(least) = count(rule).filter(|least| (text.chars().count() as u64) < *least) {
                    self.misfit(at, format!("{value} is shorter than {least} character{}", plural(least, "", "s")));
                }
            }
            ("maxLength", Value::String(text)) => {
                if let Some(most) = count(rule).filter(|most| (text.chars().count() as u64) > *most) {
                    self.misfit(at, format!("{value} is longer than {most} character{}", plural(most, "", "s")));
                }
            }
            ("pattern", Value::String(text)) => {
                if let Some(pattern) = rule.as_str() {
                    if !self.matches(pattern, text) {
                        self.misfit(at, format!("{value} does not match \"{pattern}\""));
                    }
                }
            }
            ("format", Value::String(text)) if draft <= Draft::Seven => {
                if let Some(name) = rule.as_str() {
                    if !format::fits(name, text) {
                        self.misfit(at, format!("{value} is not a {rule}"));
                    }
                }
            }
            ("minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum", Value::Number(n)) => {
                self.bound(object, keyword, rule, n, value, at)
            }
            ("multipleOf", Value::Number(n)) => {
                if let Some(step) = rule.as_f64().filter(|step| *step > 0.0) {
                    if !multiple_of(n, rule, step) {
                        self.misfit(at, format!("{value} is not a multiple of {step}"));
                    }
                }
            }
            _ => {}
        }
    }

    fn required(&mut self, rule: &Value, fields: &Map<String, Value>, at: &str) {
        for name in rule.as_array().into_iter().flatten().filter_map(Value::as_str) {
            if !fields.contains_key(name) {
                let message = format!("{} is a required property", Value::from(name));
                self.say(at, message, InvalidKind::Required(name.to_string()));
            }
        }
    }

    fn matches(&self, pattern: &str, text: &str) -> bool {
        match self.schema.patterns.get(pattern) {
            // regex-lite matches in time of its program's size times the text's length: a
            // program of a mebibyte took 0.5 µs a byte in a debug build, some 500 steps.
            Some((regex, size)) => !self.budget.spend(text.len().saturating_mul(*size) >> 11) || regex.is_match(text),
            // Every pattern the compile met is kept; one it did not meet constrains nothing.
            None => true,
        }
    }

    /// Whether `properties` or `patternProperties` of `object` speak of `name`.
    fn declared(&self, object: &Map<String, Value>, name: &str) -> bool {
        object.get("properties").and_then(Value::as_object).is_some_and(|p| p.contains_key(name))
            || object
                .get("patternProperties")
                .and_then(Value::as_object)
                .is_some_and(|p| p.keys().any(|pattern| self.matches(pattern, name)))
    }

    fn bound(&mut self, object: &Map<String, Value>, keyword: &str, rule: &Value, n: &Number, value: &Value, at: &str) {
        use std::cmp::Ordering::{Equal, Greater, Less};
        let draft = self.schema.draft;
        let Some(limit) = rule.as_number() else { return };
        let Some(order) = compare(n, limit) else { return };
        let exclusive = |name: &str| draft == Draft::Four && object.get(name) == Some(&Value::Bool(true));
        let message = match keyword {
            "minimum" if exclusive("exclusiveMinimum") && order != Greater => {
                format!("{value} is less than or equal to the minimum of {rule}")
            }
            "minimum" if order == Less => format!("{value} is less than the minimum of {rule}"),
            "maximum" if exclusive("exclusiveMaximum") && order != Less => {
                format!("{value} is greater than or equal to the maximum of {rule}")
            }
            "maximum" if order == Greater => format!("{value} is greater than the maximum of {rule}"),
            "exclusiveMinimum" if matches!(order, Less | Equal) => {
                format!("{value} is less than or equal to the minimum of {rule}")
            }
            "exclusiveMaximum" if matches!(order, Greater | Equal) => {
                format!("{value} is greater than or equal to the maximum of {rule}")
            }
            _ => return,
        };
        self.misfit(at, message);
    }

    /// The names of `value` that `object` and the schemas it applies in place evaluate, as
    /// `unevaluatedProperties` reads them: a subschema the value does not fit adds none. The
    /// `outer` schema's own `unevaluatedProperties` is the one asking, so it adds none either.
    fn evaluated_properties(
        &mut self,
        object: &Map<String, Value>,
        value: &Value,
        seen: &mut HashSet<String>,
        outer: bool,
    ) {
        let Value::Object(fields) = value else { return };
        if self.depth >= MOST_DEPTH || !self.budget.spend(1) {
            return;
        }
        self.depth += 1;
        let entered = self.enter(object);
        for name in fields.keys() {
            if self.declared(object, name)
                || object.contains_key("additionalProperties")
                || (!outer && object.contains_key("unevaluatedProperties"))
            {
                seen.insert(name.clone());
            }
        }
        self.in_place(object, value, &mut |walk, sub| {
            if let Value::Object(sub) = sub {
                walk.evaluated_properties(sub, value, seen, false);
            }
        });
        self.leave(entered);
        self.depth -= 1;
    }

    /// The items of `value` that `object` and the schemas it applies in place evaluate.
    fn evaluated_items(&mut self, object: &Map<String, Value>, value: &Value, seen: &mut [bool], outer: bool) {
        let Value::Array(items) = value else { return };
        if self.depth >= MOST_DEPTH || !self.budget.spend(1) {
            return;
        }
        self.depth += 1;
        let entered = self.enter(object);
        let draft = self.schema.draft;
        let all = (!outer && object.contains_key("unevaluatedItems"))
            || match tuple_items(object, draft) {
                Some(_) => object.contains_key("additionalItems"),
                None => object.contains_key("items"),
            };
        let leading = prefix_len(object).max(tuple_items(object, draft).map_or(0, Vec::len));
        for (i, item) in items.iter().enumerate() {
            let contained = object.get("contains").is_some_and(|rule| self.fits(rule, item));
            if all || i < leading || contained {
                seen[i] = true;
            }
        }
        self.in_place(object, value, &mut |walk, sub| {
            if let Value::Object(sub) = sub {
                walk.evaluated_items(sub, value, seen, false);
            }
        });
        self.leave(entered);
        self.depth -= 1;
    }

    /// Calls `each` with every subschema `object` applies to the value itself that the value
    /// fits: `allOf`, `anyOf`, `oneOf`, `if` with `then` or `else`, `dependentSchemas`, `$ref`.
    fn in_place(&mut self, object: &Map<String, Value>, value: &Value, each: &mut dyn FnMut(&mut Self, &Value)) {
        for keyword in ["allOf", "anyOf", "oneOf"] {
            for sub in object.get(keyword).and_then(Value::as_array).into_iter().flatten() {
                if self.fits(sub, value) {
                    each(self, sub);
                }
            }
        }
        if let Some(test) = object.get("if") {
            let branch = if self.fits(test, value) {
                each(self, test);
                object.get("then")
            } else {
                object.get("else")
            };
            if let Some(branch) = branch.filter(|b| self.fits(b, value)) {
                each(self, branch);
            }
        }
        if let (Some(Value::Object(subs)), Value::Object(fields)) = (object.get("dependentSchemas"), value) {
            for (name, sub) in subs {
                if fields.contains_key(name) && self.fits(sub, value) {
                    each(self, sub);
                }
            }
        }
        for keyword in ["$ref", "$dynamicRef", "$recursiveRef"] {
            if let Some((pointer, target, resource)) = object.get(keyword).and_then(|r| self.follow(r)) {
                if !self.chain.contains(&pointer) {
                    self.chain.push(pointer);
                    self.scope.push(resource);
                    if self.fits(target, value) {
                        each(self, target);
                    }
                    self.scope.pop();
                    self.chain.pop();
                }
            }
        }
    }
}

fn prefix_len(object: &Map<String, Value>) -> usize {
    object.get("prefixItems").and_then(Value::as_array).map_or(0, Vec::len)
}

fn plural(n: u64, one: &'static str, more: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        more
    }
}

fn type_sentence(value: &Value, names: &[&str]) -> String {
    match names {
        [one] => format!("{value} is not of type \"{one}\""),
        _ => {
            let listed: Vec<String> = TYPES.iter().filter(|t| names.contains(t)).map(|t| format!("\"{t}\"")).collect();
            format!("{value} is not of types {}", listed.join(", "))
        }
    }
}

/// `"d" is not one of "a", "b" or "c"`; past three options, the first two and how many more.
fn enum_sentence(value: &Value, options: &[Value]) -> String {
    // Only the options shown are written out: a long enum is otherwise written whole each time.
    let shown: Vec<String> = options.iter().take(if options.len() > 3 { 2 } else { 3 }).map(Value::to_string).collect();
    let listed = match options.len() {
        0 => String::new(),
        1 => shown[0].clone(),
        2 | 3 => format!("{} or {}", shown[..shown.len() - 1].join(", "), shown[shown.len() - 1]),
        n => format!("{} or {} other candidates", shown.join(", "), n - 2),
    };
    format!("{value} is not one of {listed}")
}

/// Whether `n` is a whole number of `step`s: exactly for integers, within rounding for others.
fn multiple_of(n: &Number, rule: &Value, step: f64) -> bool {
    if let (Some(x), Some(m)) = (n.as_i64(), rule.as_i64()) {
        return m == 0 || x % m == 0;
    }
    if let (Some(x), Some(m)) = (n.as_u64(), rule.as_u64()) {
        return m == 0 || x % m == 0;
    }
    let Some(x) = n.as_f64() else { return true };
    let q = x / step;
    if !q.is_finite() {
        return false;
    }
    (q - q.round()).abs() <= f64::EPSILON * 4.0 * q.abs().max(1.0)
}
