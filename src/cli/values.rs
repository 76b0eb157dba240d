//! How the command line spells the library's option values. The types belong to the layers
//! that use them (reports, settings, explain); clap stays in this one.

use clap::ValueEnum;
use clap::builder::PossibleValue;

use crate::explain::ExplainFormat;
use crate::report::Format;
use crate::settings::FailOn;

impl ValueEnum for Format {
    fn value_variants<'a>() -> &'a [Self] {
        &Format::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()).help(self.description()))
    }
}

impl ValueEnum for FailOn {
    fn value_variants<'a>() -> &'a [Self] {
        &FailOn::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()))
    }
}

impl ValueEnum for ExplainFormat {
    fn value_variants<'a>() -> &'a [Self] {
        &ExplainFormat::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let (name, description) = self.name_and_description();
        Some(PossibleValue::new(name).help(description))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_parses_back() {
        for format in Format::ALL {
            assert_eq!(Format::from_str(format.name(), false), Ok(format));
        }
        for fail_on in FailOn::ALL {
            assert_eq!(FailOn::from_str(fail_on.name(), false), Ok(fail_on));
            assert_eq!(FailOn::from_name(fail_on.name()), Some(fail_on));
        }
        for format in ExplainFormat::ALL {
            let name = format.name_and_description().0;
            assert_eq!(ExplainFormat::from_str(name, false), Ok(format));
        }
    }
}
