pub mod cards;
pub mod rules;
