//! The daily budgets of WebSocket upgrades ([`signaling_core::DailyBudget`]):
//! the service's, one Durable Object for the whole deployment
//! (`idFromName("budget")`, `DAILY_UPGRADES`), and each client address's,
//! one object per address key (`idFromName("budget-<key>")`,
//! `DAILY_UPGRADES_PER_IP`; IPv4 as is, IPv6 by its /64). Both are the same
//! class, [`BudgetObject`], holding one day's count.
//!
//! The object that admits an upgrade (a lobby, room or relay object) asks
//! [`charge_then`] only once its machine has said it would admit the
//! socket (`check_admission`), so an upgrade refused for a reason of its
//! own costs nothing. While the budgets answer, the object takes no other
//! event (the runtime's `blockConcurrencyWhile`), so nothing can take the
//! place between the question and the admission: upgrades to one object
//! wait their turn for that round trip.
//!
//! The address's budget is asked first, then the service's: an upgrade
//! the address may not have costs the service nothing. When the service's
//! budget is spent after the address's was charged, the address loses one
//! from an allowance that no upgrade can use that day anyway.
//!
//! What it costs: one Durable Object request per budget per upgrade (two
//! with both budgets on), and one alarm per budget object per day, which
//! deletes the day's count once the day is over (so an address's object
//! keeps nothing beyond its day). With both settings at 0 (the default)
//! nothing is asked and nothing counted. `docs/deploy.md` says how to
//! choose them for the Workers Free plan.

// `#[durable_object]` generates undocumented JavaScript bindings.
#![allow(missing_docs)]

use signaling_core::{DailyBudget, Level, LogRecord, ADDRESS_BUDGET_REASON};
use worker::{
    durable_object, DurableObject, Env, Method, Request, RequestInit, Response, Result,
    ScheduledTime, State,
};

use crate::config::Config;
use crate::host::{self, error_response, json_response, Logger};

/// The service-wide budget object's name.
pub const BUDGET_NAME: &str = "budget";

/// Storage key of the day's count.
const COUNT_KEY: &str = "day";

/// The name of the budget object of a client address (its key, as
/// [`signaling_core::address_key`] makes it; a client the edge named no
/// address for shares one object with every other such client).
#[must_use]
pub fn address_budget_name(client: Option<std::net::IpAddr>) -> String {
    match client {
        Some(ip) => format!("{BUDGET_NAME}-{}", signaling_core::address_key(ip)),
        None => format!("{BUDGET_NAME}-unknown"),
    }
}

/// [`charge`], with no other event delivered to the object of `state`
/// until the budgets have answered (see the module docs). A failure to
/// ask is an answer (500), not an error, which would reset the object.
pub async fn charge_then(
    state: &State,
    env: &Env,
    config: &Config,
    logger: Logger,
    client: Option<std::net::IpAddr>,
    route: &'static str,
) -> Result<Option<Response>> {
    if config.daily_upgrades == 0 && config.daily_upgrades_per_ip == 0 {
        return Ok(None);
    }
    let (env, config) = (env.clone(), config.clone());
    let answer = state
        .block_concurrency_while(async move {
            Ok(match charge(&env, &config, &logger, client, route).await {
                Ok(answer) => answer,
                Err(e) => {
                    logger.failure("http.budget_failed", &e);
                    Some(error_response(500, "internal error")?)
                }
            })
        })
        .await?;
    Ok(answer)
}

/// Charges one upgrade from `client` to the day's budgets: `None` when it
/// may go ahead, or the answer to give instead (429 when the address's
/// own budget is spent, 503 when the service's is). Call it only for an
/// upgrade the machine would admit (see the module docs).
pub async fn charge(
    env: &Env,
    config: &Config,
    logger: &Logger,
    client: Option<std::net::IpAddr>,
    route: &'static str,
) -> Result<Option<Response>> {
    let asks = [
        (
            config.daily_upgrades_per_ip,
            address_budget_name(client),
            "http.address_budget_spent",
            429,
            ADDRESS_BUDGET_REASON,
        ),
        (
            config.daily_upgrades,
            BUDGET_NAME.to_owned(),
            "http.budget_spent",
            503,
            DailyBudget::REASON,
        ),
    ];
    for (allowance, name, event, status, reason) in asks {
        if allowance == 0 {
            continue;
        }
        let stub = env
            .durable_object(crate::BUDGET_BINDING)?
            .id_from_name(&name)?
            .get_stub()?;
        let mut init = RequestInit::new();
        init.with_method(Method::Post);
        let url = format!("https://budget/take?allowance={allowance}");
        let answer = stub
            .fetch_with_request(Request::new_with_init(&url, &init)?)
            .await?;
        match answer.status_code() {
            201 => {}
            503 => {
                logger.record(&LogRecord::new(Level::Warn, event).with("route", route));
                return error_response(status, reason).map(Some);
            }
            other => {
                logger.record(
                    &LogRecord::new(Level::Error, "http.budget_failed").with("status", other),
                );
                return error_response(500, "internal error").map(Some);
            }
        }
    }
    Ok(None)
}

/// The object holding one budget's [`DailyBudget`].
#[durable_object]
pub struct BudgetObject {
    state: State,
    env: Env,
}

impl DurableObject for BudgetObject {
    fn new(state: State, env: Env) -> Self {
        BudgetObject { state, env }
    }

    /// `POST /take?allowance=N`, from the Durable Objects that admit
    /// upgrades only: 201 when the upgrade may go ahead (and is counted),
    /// 503 when the day's allowance is spent.
    async fn fetch(&self, req: Request) -> Result<Response> {
        let config = host::config(&self.env);
        let logger = Logger::new(&config);
        let url = req.url()?;
        let Some(allowance) =
            signaling_protocol::query_param(url.query().unwrap_or(""), "allowance")
                .and_then(|v| v.parse::<u64>().ok())
        else {
            return error_response(400, "bad request");
        };
        let storage = self.state.storage();
        let text: Option<String> = storage.get(COUNT_KEY).await?;
        let mut budget: DailyBudget = text
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        let before = budget;
        let allowed = budget.take(host::now().0, allowance);
        if budget != before {
            let text = serde_json::to_string(&budget).unwrap_or_default();
            if let Err(e) = storage.put(COUNT_KEY, text).await {
                logger.failure("storage.put_failed", &e);
            }
            if before.day != budget.day {
                // A new day: forget it when it is over.
                let when = worker::js_sys::Date::new(&(budget.day_ends_at() as f64).into());
                if let Err(e) = storage.set_alarm(ScheduledTime::new(when)).await {
                    logger.failure("storage.alarm_failed", &e);
                }
            }
        }
        if allowed {
            return json_response(201, "{}".to_owned());
        }
        error_response(503, DailyBudget::REASON)
    }

    /// The day is over: nothing of it is kept.
    async fn alarm(&self) -> Result<Response> {
        let config = host::config(&self.env);
        let logger = Logger::new(&config);
        if let Err(e) = self.state.storage().delete_all().await {
            logger.failure("storage.delete_failed", &e);
        }
        Response::empty()
    }
}
